import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download's body consumer: streams the bytes to a new temporary file readable by the owner
/// only (URLSession's own download tasks leave world-readable files behind on Linux, L11).
///
/// The file is created on the first response, truncated when another response arrives on the same
/// task (L3), and removed by ``discard()``: the cycle discards it after a failure, a cancel, or
/// once the download handler has returned.
struct DownloadFile: ResponseBodyConsumer {
    /// Where the bytes go.
    let url: URL
    private var descriptor: Int32 = -1
    private(set) var bytesWritten: Int64 = 0

    init(directory: URL = FileManager.default.temporaryDirectory) {
        url = directory.appendingPathComponent("Jewzruxin-\(UUID().uuidString).download")
    }

    /// No bytes are kept in memory.
    var data: Data { Data() }

    mutating func prepare(for response: HTTPURLResponse) throws {
        if descriptor < 0 {
            descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw Self.error("can't create", url) }
        } else {
            guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
                throw Self.error("can't truncate", url)
            }
        }
        bytesWritten = 0
    }

    mutating func append(_ chunk: Data) throws {
        guard descriptor >= 0 else { throw Self.error("no response before the body for", url) }
        let fd = descriptor
        try chunk.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
            guard var pointer = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let written = write(fd, pointer, remaining)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw Self.error("can't write to", url)
                }
                pointer += written
                remaining -= written
            }
        }
        bytesWritten += Int64(chunk.count)
    }

    /// Closes the file, keeping it; `false` if it was never created or can't be flushed.
    mutating func close() -> Bool {
        guard descriptor >= 0 else { return false }
        let closed = closeDescriptor(descriptor) == 0
        descriptor = -1
        return closed
    }

    /// Closes and removes the file.
    mutating func discard() {
        if descriptor >= 0 {
            _ = closeDescriptor(descriptor)
            descriptor = -1
        }
        unlink(url.path)
    }

    private static func error(_ what: String, _ url: URL) -> any Error {
        let code = errno
        return CocoaError(.fileWriteUnknown, userInfo: [
            NSFilePathErrorKey: url.path,
            NSLocalizedDescriptionKey: "\(what) \(url.path): \(String(cString: strerror(code)))",
        ])
    }
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(descriptor)
    #else
    Darwin.close(descriptor)
    #endif
}
