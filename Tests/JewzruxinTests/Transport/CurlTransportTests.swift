import Foundation
import Testing
import JewzruxinTestSupport
@testable import Jewzruxin
import JewzruxinSandbox
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The system's libcurl as the curl transport loads it.
@Suite("Curl transport: the library")
struct CurlTransportTests {
    @Test("the system's libcurl loads at run time, new enough, with TLS; it names what it decodes")
    func libraryLoads() throws {
        let curl = try CurlLibrary.system.get()
        #expect(CurlLibrary.candidateNames.contains(curl.name))
        #expect(curl.versionNumber >= CurlLibrary.minimumVersionNumber)
        #expect(curl.version.split(separator: ".").count == 3)
        // FoundationNetworking's libcurl serves https.
        #expect(curl.features.contains(.ssl))
        #expect(curl.sslVersion != nil)
        if curl.features.contains(.libz) {
            #expect(curl.acceptedEncodings?.contains("gzip") == true)
            #expect(curl.libzVersion != nil)
        }
        #expect(curl.features.contains(.brotli) == (curl.acceptedEncodings?.contains("br") == true))
    }

    @Test("a library that isn't there, or isn't libcurl, is refused with the reason")
    func refusedLibraries() {
        let missing = CurlLibrary.problem(opening: "libjewzruxin-no-such-library.so.4")
        #expect(missing?.contains("libjewzruxin-no-such-library.so.4") == true)
        let notCurl = CurlLibrary.problem(opening: "libz.so.1")
        #expect(notCurl?.contains("curl_global_init") == true)
        #expect(CurlLibrary.problem(opening: "libcurl.so.4") == nil)
    }
}
