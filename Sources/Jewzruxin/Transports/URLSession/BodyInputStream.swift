import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a ``BodyInputStream`` reads: a form's reader, or a streamed body's pipe.
protocol BodyReading: AnyObject {
    /// Fills `buffer` with the next bytes; 0 at the end of the body.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Lets go of what the body holds open.
    func close()
}

extension MultipartBodyReader: BodyReading {}

/// An ``UploadStream``'s pipe as a ``BodyReading``: a read waits for the stream's next bytes,
/// until `isInterrupted` says the task was cancelled.
final class UploadPipeReader: BodyReading {
    private let pipe: UploadPipe
    private let isInterrupted: @Sendable () -> Bool

    init(_ pipe: UploadPipe, isInterrupted: @escaping @Sendable () -> Bool) {
        self.pipe = pipe
        self.isInterrupted = isInterrupted
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try pipe.readWaiting(into: buffer, isInterrupted: isInterrupted)
    }

    func close() { pipe.close() }
}

/// A streamed request body as the `InputStream` URLSession reads it from: the reader fills
/// URLSession's buffer directly, so a large file goes from disk to the socket in pieces.
///
/// URLSession opens it, asks ``hasBytesAvailable`` and reads until 0. A read that fails returns -1
/// and keeps its error in ``failure``, where the transport finds it once the task ends (URLSession
/// reports only that the body failed).
final class BodyInputStream: InputStream {
    private let reader: any BodyReading
    private var status = InputStream.Status.notOpen
    /// The error the body failed with, shared with the transport's record of the task.
    let failure: Failure

    /// The error a streamed body failed with; read once its task has ended.
    final class Failure: Sendable {
        let error = Locked<(any Error)?>(nil)
    }

    init(_ reader: any BodyReading, failure: Failure) {
        self.reader = reader
        self.failure = failure
        super.init(data: Data())
    }

    override var streamStatus: InputStream.Status { status }

    override var streamError: (any Error)? { failure.error.withLock { $0 } }

    override func open() {
        if status == .notOpen { status = .open }
    }

    override func close() {
        reader.close()
        status = .closed
    }

    override var hasBytesAvailable: Bool { status == .open }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard status == .open else { return status == .atEnd ? 0 : -1 }
        do {
            let count = try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
            if count == 0 {
                status = .atEnd
                reader.close()
            }
            return count
        } catch {
            failure.error.withLock { $0 = error }
            status = .error
            reader.close()
            return -1
        }
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}
