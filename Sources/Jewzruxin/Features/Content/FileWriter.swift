import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams the body to a file as it arrives, so memory stays flat whatever the size.
///
/// The bytes go to a hidden temporary file next to the destination, created afresh (never through
/// a symbolic link) and readable by its owner only unless ``permissions`` says otherwise. Only a
/// complete body replaces the destination, in one `rename`: after any failure — a refused status,
/// a dropped connection, a cancel, a full disk — the partial file is removed and whatever was at
/// the destination is left as it was. A destination that is a directory is refused with
/// ``ContentHandlerError/Code/unusableDestination``.
///
/// The content is `nil`; the file is at ``url``.
open class FileWriter: SelectiveDiscarder, @unchecked Sendable {
    /// Where the complete body goes.
    public let url: URL
    /// The permissions of the file written; `0o600` by default.
    public var permissions: mode_t
    /// The bytes written for the current response.
    public private(set) var bytesWritten: Int64 = 0

    private var partialPath: String?
    private var descriptor: Int32 = -1

    /// Creates a writer.
    ///
    /// - Parameters:
    ///   - url: Where the complete body goes; a file URL whose directory exists.
    ///   - permissions: The permissions of the file written.
    ///   - acceptableResponses: The statuses taken; `nil` uses the class default.
    ///   - acceptableContentTypes: The media types taken; `nil` uses the class default.
    public init(
        url: URL, permissions: mode_t = 0o600,
        acceptableResponses: Set<Int>? = nil, acceptableContentTypes: [String]? = nil
    ) {
        self.url = url
        self.permissions = permissions
        super.init(acceptableResponses: acceptableResponses, acceptableContentTypes: acceptableContentTypes)
    }

    /// Creates a writer to a file path.
    ///
    /// - Parameters:
    ///   - path: Where the complete body goes; its directory must exist.
    ///   - permissions: The permissions of the file written.
    public convenience init(path: String, permissions: mode_t = 0o600) {
        self.init(url: URL(fileURLWithPath: path), permissions: permissions)
    }

    /// Applies the acceptance rules, then creates the temporary file.
    ///
    /// - Throws: A refusal, or ``ContentHandlerError/Code/unusableDestination`` when the destination
    ///   is a directory or its directory can't take a new file.
    open override func prepare(for response: HTTPResponse) throws {
        try super.prepare(for: response)
        closeAndRemovePartial()
        bytesWritten = 0
        let destination = url.path
        var status = stat()
        if lstat(destination, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw ContentHandlerError(.unusableDestination, reason: "\(destination) is a directory", response: response)
        }
        let directory = url.deletingLastPathComponent().path
        let partial = "\(directory)/.\(url.lastPathComponent).\(UUID().uuidString).partial"
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw systemError(.unusableDestination, "can't create a file in \(directory)") }
        descriptor = fd
        partialPath = partial
        guard fchmod(fd, permissions) == 0 else { throw systemError(.unusableDestination, "can't set the permissions of \(partial)") }
    }

    /// Writes the bytes, all of them, before returning.
    ///
    /// - Throws: ``ContentHandlerError/Code/writeFailed`` when the file system refuses them.
    open override func append(_ data: Data) throws {
        let fd = descriptor
        guard fd >= 0 else { throw ContentHandlerError(.writeFailed, reason: "no file is open for \(url.path)", response: response) }
        guard POSIXFile.writeAll(data, to: fd) else { throw systemError(.writeFailed, "can't write to \(url.path)") }
        bytesWritten += Int64(data.count)
    }

    /// Closes the file and moves it to the destination; no content.
    ///
    /// - Throws: ``ContentHandlerError/Code/writeFailed`` or ``ContentHandlerError/Code/unusableDestination``.
    open override func parseContent() throws -> (any Sendable)? {
        guard let partial = partialPath, descriptor >= 0 else {
            throw ContentHandlerError(.writeFailed, reason: "no file was written for \(url.path)", response: response)
        }
        let fd = descriptor
        descriptor = -1
        guard POSIXFile.close(fd) == 0 else { throw systemError(.writeFailed, "can't finish writing \(url.path)") }
        guard rename(partial, url.path) == 0 else { throw systemError(.unusableDestination, "can't move the download to \(url.path)") }
        partialPath = nil
        return nil
    }

    /// Removes the partial file, if the body wasn't moved to the destination.
    open override func cleanup() {
        closeAndRemovePartial()
        super.cleanup()
    }

    private func closeAndRemovePartial() {
        if descriptor >= 0 {
            _ = POSIXFile.close(descriptor)
            descriptor = -1
        }
        if let partial = partialPath {
            unlink(partial)
            partialPath = nil
        }
    }

    private func systemError(_ code: ContentHandlerError.Code, _ what: String) -> ContentHandlerError {
        let number = errno
        let underlying = CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        return ContentHandlerError(
            code, reason: "\(what): \(String(cString: strerror(number)))", response: response, underlyingError: underlying)
    }
}
