import Foundation
import JewzruxinSandbox
#if canImport(Glibc)
import Glibc
#endif

/// Programs of the system the benchmarks use when they are installed: nginx (a reference server for
/// the throughput section) and wrk (a load generator for the `sandbox` section). Both come from
/// Debian's packages; `Scripts/bench-servers.sh` installs them.
enum ExternalTools {
    static let installHint = "run Scripts/bench-servers.sh"

    /// The first executable named `name` on PATH, else at one of `paths`.
    static func find(_ name: String, paths: [String] = []) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let candidates = path.split(separator: ":").map { "\($0)/\(name)" } + paths
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `BENCH_NGINX` / `BENCH_WRK` in the environment: the program to use, or `none` to skip its rows.
    static func override(_ variable: String) -> String?? {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else { return .none }
        return .some(value == "none" || !FileManager.default.isExecutableFile(atPath: value) ? nil : value)
    }

    static var nginx: String? {
        override("BENCH_NGINX") ?? find("nginx", paths: ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx", "/sbin/nginx"])
    }

    static var wrk: String? { override("BENCH_WRK") ?? find("wrk", paths: ["/usr/local/bin/wrk", "/usr/bin/wrk"]) }

    /// A TCP port on 127.0.0.1 that nothing listens on: bound with port 0, read, closed.
    static func freePort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// Runs a program to its end; its standard output and error together, and its exit status.
    static func run(_ executable: String, _ arguments: [String]) throws -> (output: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }
}

/// nginx started by the benchmark itself: a generated configuration in a temporary directory (no
/// daemon, one worker, 127.0.0.1 on a free port, pid and logs in the directory, no access log)
/// serving ``ThroughputBenchmark/path`` as a file of the same bytes as the sandbox's, as
/// `application/json`, without validators (no ETag nor Last-Modified: the sandbox sends none),
/// from nginx's open file cache.
final class NginxServer {
    let process = Process()
    let directory: URL
    /// The folder served.
    let root: URL
    let port: Int
    /// A plain-http port answering nginx's `stub_status`: connections accepted so far.
    let statusPort: Int?
    let version: String
    /// The self-signed certificate served over TLS (CN=localhost, for 127.0.0.1), to trust.
    let certificateFile: URL?
    var baseURL: String { (certificateFile == nil ? "http" : "https") + "://127.0.0.1:\(port)" }

    /// - Parameter tls: Serve https (HTTP/2 offered by ALPN, HTTP/1.1 otherwise) with a new
    ///   self-signed ECDSA P-256 certificate, made with `openssl`.
    init(executable: String, tls: Bool = false) throws {
        version = (try? ExternalTools.run(executable, ["-v"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "nginx"
        // Temporary paths only for the modules this build has (nginx -V lists the ones left out).
        let build = (try? ExternalTools.run(executable, ["-V"]).output) ?? ""
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("jewzruxin-nginx-\(UUID().uuidString)", isDirectory: true)
        root = directory.appendingPathComponent("www", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Workers run as nobody when the master is root: let them in.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.path)
        try Model.body.write(to: root.appendingPathComponent(String(ThroughputBenchmark.path.dropFirst())))
        guard let port = ExternalTools.freePort() else { throw BenchmarkError(description: "no free port on 127.0.0.1") }
        self.port = port
        let statusPort = build.contains("--with-http_stub_status_module") ? ExternalTools.freePort() : nil
        self.statusPort = statusPort
        let statusServer = statusPort.map { "server {\n        listen 127.0.0.1:\($0);\n        location / { stub_status; }\n    }" } ?? ""
        let dir = directory.path
        var listen = "listen 127.0.0.1:\(port);"
        if tls {
            let certificate = directory.appendingPathComponent("cert.pem")
            let key = directory.appendingPathComponent("key.pem")
            let made = try ExternalTools.run("/usr/bin/env", [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", key.path, "-out", certificate.path,
            ])
            guard made.status == 0 else { throw BenchmarkError(description: "openssl couldn't make a certificate: \(made.output)") }
            certificateFile = certificate
            listen = """
                listen 127.0.0.1:\(port) ssl http2;
                            ssl_certificate \(certificate.path);
                            ssl_certificate_key \(key.path);
                            ssl_session_cache shared:SSL:1m;
                """
        } else {
            certificateFile = nil
        }
        var temporaryPaths = "        client_body_temp_path \(dir)/client_body;\n"
        for (module, directive) in [("proxy", "proxy"), ("fastcgi", "fastcgi"), ("uwsgi", "uwsgi"), ("scgi", "scgi")]
        where !build.contains("--without-http_\(module)_module") {
            temporaryPaths += "        \(directive)_temp_path \(dir)/\(directive);\n"
        }
        let configuration = """
            daemon off;
            master_process on;
            worker_processes 1;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log warn;
            events {
                worker_connections 1024;
            }
            http {
                access_log off;
                server_tokens off;
            \(temporaryPaths)
                types {
                    application/json json;
                }
                default_type application/octet-stream;
                # A 103-byte file: sendfile buys nothing, and the open file cache saves an open() and
                # fstat() per request (on this machine, about twice the requests per second to wrk).
                sendfile off;
                open_file_cache max=64;
                open_file_cache_valid 60s;
                tcp_nodelay on;
                etag off;
                keepalive_timeout 75s;
                keepalive_requests 1000000;
                server {
                    \(listen)
                    root \(root.path);
                    location / {
                        add_header Last-Modified "";
                    }
                }
                \(statusServer)
            }

            """
        let file = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: executable)
        // -e: the error log before the configuration is read (nginx ≥ 1.19.5), not /var/log/nginx's.
        process.arguments = ["-p", dir + "/", "-c", file.path, "-e", "\(dir)/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !ExternalTools.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
                stop()
                throw BenchmarkError(description: "nginx didn't start listening on 127.0.0.1:\(port): \(log.suffix(600))")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Writes the sandbox's pattern body of `size` bytes as the file at `path` (`/bytes/N`), for a
    /// download to compare with what the sandbox would have sent.
    func addPatternFile(_ path: String, size: Int64) throws {
        let file = root.appendingPathComponent(String(path.dropFirst()))
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.deletingLastPathComponent().path)
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw BenchmarkError(description: "can't create \(file.path)")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var offset: Int64 = 0
        while offset < size {
            let count = Int(min(Int64(1 << 20), size - offset))
            try handle.write(contentsOf: SandboxBody.expectedPattern(offset: offset, count: count))
            offset += Int64(count)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
    }

    /// Stops the master process this started (SIGTERM: a fast shutdown, workers included) and
    /// removes the directory.
    /// The connections nginx has accepted so far (its `stub_status`), `nil` without the module.
    /// Reading it opens one more.
    func acceptedConnections() -> Int? {
        guard let statusPort,
              let status = try? ExternalTools.run("/usr/bin/env", ["curl", "-s", "http://127.0.0.1:\(statusPort)/"]),
              status.status == 0
        else { return nil }
        // "Active connections: 1 \nserver accepts handled requests\n 12 12 40 \n…"
        let lines = status.output.split(separator: "\n")
        guard let index = lines.firstIndex(where: { $0.contains("accepts") }), index + 1 < lines.count else { return nil }
        return lines[index + 1].split(separator: " ").first.flatMap { Int($0) }
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// wrk against one URL: `wrk -t1 -c<connections> -d<seconds>s`.
enum WrkRun {
    struct Result: Codable {
        var server: String
        var connections: Int
        var seconds: Int
        var requestsPerSecond: Double?
        /// "Socket errors" and "Non-2xx or 3xx responses" lines, when wrk printed any.
        var errors: [String]
        var latency: String?
        var output: String?
    }

    static func run(_ wrk: String, url: String, server: String, connections: Int, seconds: Int) -> Result {
        var result = Result(server: server, connections: connections, seconds: seconds, errors: [])
        do {
            let (output, status) = try ExternalTools.run(wrk, ["-t1", "-c\(connections)", "-d\(seconds)s", url])
            for line in output.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if line.hasPrefix("Requests/sec:") {
                    result.requestsPerSecond = Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces))
                } else if line.hasPrefix("Socket errors") || line.hasPrefix("Non-2xx") {
                    result.errors.append(line)
                } else if line.hasPrefix("Latency") {
                    result.latency = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.map(String.init)
                }
            }
            if result.requestsPerSecond == nil || status != 0 { result.output = output }
        } catch {
            result.output = "wrk didn't run: \(error)"
        }
        return result
    }
}
