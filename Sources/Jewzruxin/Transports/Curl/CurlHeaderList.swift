import CJewzruxinCurl

/// The request's header lines for libcurl (`CURLOPT_HTTPHEADER`): a `struct curl_slist` built in one
/// allocation, its nodes first and then their lines, each ending in a NUL byte.
///
/// libcurl reads the list while the transfer runs and never changes or frees it; the transfer frees
/// it when it lets its handle go. `curl_slist_append` would cost two allocations a line (the node
/// and a copy of the line), and the lines themselves one `String` each before that.
struct CurlHeaderList: ~Copyable {
    /// A line of the list.
    struct Line {
        /// The field's name, as given.
        var name: String
        /// Its value; `nil` for `Name:`, which tells libcurl not to send a field it would add.
        var value: String?
    }

    /// The first node, for `CURLOPT_HTTPHEADER`; `nil` for no line.
    let head: UnsafeMutablePointer<jz_slist_node>?
    private let block: UnsafeMutableRawPointer?

    /// The list of `lines`, in their order. A field with an empty value goes as `Name;`, which
    /// libcurl sends as `Name:` (`Name:` itself removes a field).
    init(_ lines: [Line]) {
        guard !lines.isEmpty else {
            head = nil
            block = nil
            return
        }
        let nodeBytes = lines.count * MemoryLayout<jz_slist_node>.stride
        var textBytes = 0
        for line in lines {
            // The name, then `:` (nil), `;` (empty) or `: ` and the value, then NUL.
            textBytes += line.name.utf8.count + 2
            if let value = line.value, !value.isEmpty { textBytes += 1 + value.utf8.count }
        }
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: nodeBytes + textBytes, alignment: MemoryLayout<jz_slist_node>.alignment)
        let nodes = block.bindMemory(to: jz_slist_node.self, capacity: lines.count)
        let text = (block + nodeBytes).bindMemory(to: UInt8.self, capacity: textBytes)
        var offset = 0
        func write(_ string: String) {
            let copied: Int? = string.utf8.withContiguousStorageIfAvailable { bytes in
                if let base = bytes.baseAddress { (text + offset).update(from: base, count: bytes.count) }
                return bytes.count
            }
            if let copied {
                offset += copied
            } else {
                // A bridged string: its bytes one by one.
                for byte in string.utf8 { write(byte) }
            }
        }
        func write(_ byte: UInt8) {
            text[offset] = byte
            offset += 1
        }
        for (index, line) in lines.enumerated() {
            let start = offset
            write(line.name)
            switch line.value {
            case nil:
                write(UInt8(ascii: ":"))
            case let value? where value.isEmpty:
                write(UInt8(ascii: ";"))
            case let value?:
                write(UInt8(ascii: ":"))
                write(UInt8(ascii: " "))
                write(value)
            }
            write(0)
            let data = UnsafeMutableRawPointer(text + start).assumingMemoryBound(to: CChar.self)
            (nodes + index).initialize(to: jz_slist_node(data: data, next: index + 1 < lines.count ? nodes + index + 1 : nil))
        }
        precondition(offset == textBytes, "the header lines took \(offset) bytes of \(textBytes)")
        self.block = block
        head = nodes
    }

    deinit {
        block?.deallocate()
    }

    /// The lines, as libcurl reads them: for tests.
    var strings: [String] {
        var strings: [String] = []
        var node = head
        while let current = node {
            strings.append(current.pointee.data.map { String(cString: $0) } ?? "")
            node = current.pointee.next
        }
        return strings
    }
}
