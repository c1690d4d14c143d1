// Fuzz target `profile`: loading an HTTPService profile (JSON or property list) from a file
// of arbitrary bytes, then validating it.
//
// Input: byte 0 picks the file extension (`.json`, `.plist`, none); the rest is the file.
import Foundation
@testable import Jewzruxin

private func fail(_ message: String) -> Never {
    fatalError("profile fuzz invariant: \(message)")
}

private let directory: URL = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let url = URL(fileURLWithPath: base).appendingPathComponent("jewzruxin-fuzz-profile-\(getpid())")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: "/dev/shm/jewzruxin-fuzz-profile-\(getpid())") }
    return url
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    guard count >= 1 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: start, count: count)
    let name = ["profile.json", "profile.plist", "profile"][Int(bytes[0]) % 3]
    let url = directory.appendingPathComponent(name)
    guard (try? Data(bytes[1...]).write(to: url)) != nil else { fail("cannot write \(url.path)") }
    let dictionary: [String: Any]
    do {
        dictionary = try HTTPService.readProfileDictionary(at: url)
    } catch {
        _ = error.description
        return 0
    }
    let problems = HTTPService.verifyProfile(dictionary)
    let profile: HTTPService.Profile
    do {
        profile = try HTTPService.Profile(dictionary)
    } catch {
        if problems.isEmpty { fail("verifyProfile found no problem but the profile throws \(error)") }
        return 0
    }
    if !problems.isEmpty { fail("verifyProfile found problems in a valid profile") }
    // The dictionary form of a valid profile is valid and gives the same profile.
    guard let again = try? HTTPService.Profile(profile.dictionary), again == profile else {
        fail("dictionary form does not round-trip")
    }
    for resource in profile.resources {
        if profile.resource(named: resource.name) == nil { fail("resource not found by its name") }
        _ = try? resource.uriTemplate.expand(["id": "1"])
    }
    return 0
}
