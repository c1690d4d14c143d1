extension String {
    /// Runs `body` over the string's UTF-8 bytes: where they are for a native string, which
    /// `utf8.withContiguousStorageIfAvailable` allows without copying the string first as the
    /// mutating `withUTF8` would; only a lazily bridged string is made contiguous.
    ///
    /// A loop over the buffer costs a fraction of one over `utf8`, whose iterator decodes the
    /// string's representation at every step: it matters on the per-request paths (header names
    /// and values, request heads).
    @inline(__always)
    func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var contiguous = self
        return try contiguous.withUTF8(body)
    }
}

extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of `string` (a copy of its storage, not a walk of its `utf8` view).
    @inline(__always)
    mutating func appendUTF8(_ string: String) {
        string.withUTF8Bytes { append(contentsOf: $0) }
    }
}
