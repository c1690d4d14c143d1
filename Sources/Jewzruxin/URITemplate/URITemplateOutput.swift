/// A growable byte buffer for one expansion: it starts in caller-provided (stack) memory and moves to
/// the heap only when that fills up. Every write is preceded by a capacity check.
struct URITemplateOutput: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count: Int
    private var capacity: Int
    private var ownsBase: Bool

    init(scratch: UnsafeMutableBufferPointer<UInt8>) {
        // A zero-capacity scratch buffer may have a nil base; start on the heap then.
        if let address = scratch.baseAddress, scratch.count > 0 {
            base = address
            capacity = scratch.count
            ownsBase = false
        } else {
            base = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
            capacity = 64
            ownsBase = true
        }
        count = 0
    }

    deinit {
        if ownsBase { base.deallocate() }
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if extra > capacity &- count { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let newCapacity = Swift.max(capacity &* 2, count + extra)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        if ownsBase { base.deallocate() }
        base = newBase
        capacity = newCapacity
        ownsBase = true
    }

    /// Appends one byte.
    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    /// Appends one byte after ``reserve(_:)`` has made room for it.
    @inline(__always)
    mutating func appendReserved(_ byte: UInt8) {
        assert(count < capacity)
        base[count] = byte
        count &+= 1
    }

    /// Appends `%XX` for `byte`.
    @inline(__always)
    mutating func appendTriplet(_ byte: UInt8) {
        reserve(3)
        appendReserved(0x25)
        appendReserved(URITemplateEncoding.hexDigit(byte >> 4))
        appendReserved(URITemplateEncoding.hexDigit(byte & 0x0F))
    }

    /// Appends `bytes`.
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).initialize(from: source, count: bytes.count)
        count &+= bytes.count
    }

    /// Appends `bytes`.
    @inline(__always)
    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Appends the decimal digits of `value`.
    mutating func append(decimal value: Int) {
        reserve(20)
        if value < 0 { appendReserved(0x2D) }
        var magnitude = value.magnitude
        var digits = 0
        var probe = magnitude
        repeat { digits &+= 1; probe /= 10 } while probe != 0
        var position = count &+ digits
        count = position
        repeat {
            position &-= 1
            base[position] = 0x30 &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
    }

    /// The bytes written, as a string (they are always ASCII).
    func makeString() -> String {
        String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }
}
