import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A form's body as the `InputStream` URLSession reads a streamed request body from: the reader
/// fills URLSession's buffer directly, so a large file goes from disk to the socket in pieces.
///
/// URLSession opens it, asks ``hasBytesAvailable`` and reads until 0. A read that fails returns -1
/// and keeps its ``MultipartFormDataError`` in ``failure``, where the transport finds it once the
/// task ends (URLSession reports only that the body failed).
final class MultipartInputStream: InputStream {
    private let reader: MultipartBodyReader
    private var status = InputStream.Status.notOpen
    /// The error the body failed with, shared with the transport's record of the task.
    let failure: Failure

    /// The error a streamed body failed with; read once its task has ended.
    final class Failure: Sendable {
        let error = Locked<(any Error)?>(nil)
    }

    init(_ plan: MultipartFormData.Plan, failure: Failure) {
        reader = MultipartBodyReader(plan)
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

/// An ``UploadStream``'s bytes as the `InputStream` URLSession reads a streamed request body from:
/// a read waits for the stream's next bytes, on URLSession's thread. A failure is kept in
/// ``failure``, as a form's is.
final class UploadStreamInputStream: InputStream {
    private let pipe: UploadPipe
    private var status = InputStream.Status.notOpen
    let failure: MultipartInputStream.Failure
    /// Whether the task was cancelled: a read waiting for the stream then ends.
    private let isInterrupted: @Sendable () -> Bool

    init(_ pipe: UploadPipe, failure: MultipartInputStream.Failure, isInterrupted: @escaping @Sendable () -> Bool) {
        self.pipe = pipe
        self.failure = failure
        self.isInterrupted = isInterrupted
        super.init(data: Data())
    }

    override var streamStatus: InputStream.Status { status }

    override var streamError: (any Error)? { failure.error.withLock { $0 } }

    override func open() {
        if status == .notOpen { status = .open }
    }

    override func close() {
        pipe.close()
        status = .closed
    }

    override var hasBytesAvailable: Bool { status == .open }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard status == .open else { return status == .atEnd ? 0 : -1 }
        do {
            let count = try pipe.readWaiting(into: UnsafeMutableRawBufferPointer(start: buffer, count: length), isInterrupted: isInterrupted)
            if count == 0 { status = .atEnd }
            return count
        } catch {
            failure.error.withLock { $0 = error }
            status = .error
            pipe.close()
            return -1
        }
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}
