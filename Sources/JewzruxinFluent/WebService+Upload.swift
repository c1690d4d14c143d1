import Foundation
import Jewzruxin

extension WebService {
    /// Makes the task of a `multipart/form-data` upload: fields, files and streams, the files read
    /// from disk as they are sent.
    ///
    /// ```swift
    /// var form = MultipartFormData()
    /// form.append("Jane", name: "name")
    /// form.append(fileAt: avatarURL, name: "avatar")
    /// let reply = try await service.upload(multipart: form, to: "/profile/").json()
    /// ```
    ///
    /// The form is the body (a ``ServiceTask/Option/body(_:)`` option is ignored) and its
    /// `Content-Type` the request's; headers, the cache policy and the timeout come from
    /// `options`. A missing file ends the task with `MultipartFormDataError.unreadableFile`
    /// before anything is sent.
    /// - Parameters:
    ///   - form: The form to send.
    ///   - path: A path relative to ``baseURLString``, or an absolute URL.
    ///   - method: The method, `POST` by default.
    ///   - options: Headers, the cache policy, the timeout.
    ///   - progress: Reports the bytes sent, on the cycle's handler queue.
    /// - Returns: The task, to chain handlers on.
    @discardableResult
    public func upload(
        multipart form: MultipartFormData, to path: String, method: HTTPMethod = .post,
        options: [ServiceTask.Option] = [], progress: HTTPCycle.DidSendBodyDataHandler? = nil
    ) -> ServiceTask {
        task(method, absoluteURLString(path), parameters: nil, options: options) { cycle in
            cycle.uploadSource = .multipart(form)
            cycle.didSendBodyDataHandler = progress
        }
    }
}
