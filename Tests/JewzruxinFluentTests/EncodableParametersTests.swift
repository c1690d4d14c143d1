import Foundation
import Jewzruxin
import JewzruxinFluent
import JewzruxinSandbox
import Testing
import JewzruxinTestSupport

/// `Encodable` values as a request's parameters: the query, a form, or JSON.
@Suite("Encodable parameters", .onEveryTransport)
struct EncodableParametersTests {
    struct Filter: Encodable, Sendable {
        let city: String
        let open: Bool
    }

    struct Query: Encodable, Sendable {
        let zip: String
        let page: Int
        let ratio: Double
        let tags: [String]
        let note: String?
        let filter: Filter
    }

    static let query = Query(zip: "15217", page: 2, ratio: 0.5, tags: ["a b", "c"], note: nil, filter: Filter(city: "Pittsburgh", open: true))
    /// The query `query` makes: keys sorted, `nil` left out, the array's key repeated, the nested
    /// object's members in brackets (percent-encoded).
    static let expectedQuery = "filter%5Bcity%5D=Pittsburgh&filter%5Bopen%5D=true&page=2&ratio=0.5&tags=a%20b&tags=c&zip=15217"

    @Test("GET: a struct's members are the query, merged with the path's own, keys sorted")
    func query() async throws {
        try await withSandbox { sandbox in
            let received = try Inspection(try await makeService(sandbox).GET("/inspect/?z=1", parameters: Self.query).data())
            // Merged and sorted with the path's own.
            #expect(received.target == "/inspect/?" + Self.expectedQuery.replacingOccurrences(of: "&zip=", with: "&z=1&zip="))
            #expect(received.bodyLength == 0)
        }
    }

    @Test("POST: a form by default; the encoder's own JSON with .parameterEncoding(.json)")
    func body() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let form = try Inspection(try await service.POST("/inspect/", parameters: Self.query).data())
            #expect(form.body == Self.expectedQuery)
            #expect(form.values("Content-Type") == ["application/x-www-form-urlencoded"])

            struct Event: Encodable, Sendable { let startDate: Date; let maxSeats: Int? }
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.dateEncodingStrategy = .secondsSince1970
            encoder.outputFormatting = .sortedKeys
            let json = try Inspection(try await service.POST(
                "/inspect/", parameters: Event(startDate: Date(timeIntervalSince1970: 86400), maxSeats: 12), encoder: encoder,
                options: [.parameterEncoding(.json)]).data())
            #expect(json.body == #"{"max_seats":12,"start_date":86400}"#)
            #expect(json.values("Content-Type") == ["application/json"])
            // The encoder's strategies apply to a form too.
            let snake = try Inspection(try await service.PUT(
                "/inspect/", parameters: Event(startDate: Date(timeIntervalSince1970: 60), maxSeats: nil), encoder: encoder).data())
            #expect(snake.body == "start_date=60")
        }
    }

    @Test("a dictionary makes the same request through either form of the method")
    func dictionaryUnchanged() async throws {
        try await withSandbox { sandbox in
            let service = makeService(sandbox)
            let typed: [String: String] = ["c": "x y", "a": "1"]
            let viaGeneric = try Inspection(try await service.POST("/inspect/", parameters: typed).data())
            let viaDictionary = try Inspection(try await service.POST("/inspect/", parameters: typed as [String: any Sendable]).data())
            #expect(viaGeneric.body == "a=1&c=x%20y")
            #expect(viaGeneric.body == viaDictionary.body)
            #expect(viaGeneric.values("Content-Type") == viaDictionary.values("Content-Type"))
        }
    }

    @Test("what a query can't say fails the task before anything is sent, naming where")
    func refused() async throws {
        try await withSandbox { sandbox in
            struct Line: Encodable, Sendable { let sku: String }
            struct Order: Encodable, Sendable { let lines: [Line] }
            let service = makeService(sandbox)
            await #expect(throws: Request.ParameterEncodingError.self) {
                _ = try await service.GET("/inspect/", parameters: Order(lines: [Line(sku: "x")])).data()
            }
            do {
                _ = try await service.POST("/inspect/", parameters: [1, 2, 3]).data()
                Issue.record("an array is not an object of parameters")
            } catch let error as Request.ParameterEncodingError {
                #expect(error.path == "")
                #expect("\(error)" == "parameters: an array is not an object of named values")
            }
            do {
                _ = try await service.GET("/inspect/", parameters: Order(lines: [Line(sku: "x")])).data()
            } catch let error as Request.ParameterEncodingError {
                #expect(error.path == "lines")
            }
            // The same value is fine as JSON.
            let json = try Inspection(try await service.POST(
                "/inspect/", parameters: Order(lines: [Line(sku: "x")]), options: [.parameterEncoding(.json)]).data())
            #expect(json.body == #"{"lines":[{"sku":"x"}]}"#)
        }
    }
}
