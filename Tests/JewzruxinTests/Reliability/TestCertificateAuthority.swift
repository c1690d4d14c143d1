import Foundation

/// A throwaway certificate authority, made with `openssl` in a temporary directory of its own, that
/// issues server certificates with the names and validity a TLS test asks for: one that expired, one
/// for another host. A client that trusts ``certificate`` (and nothing else changed) then refuses a
/// certificate for its flaw alone, which a test shows by having the same CA's valid certificate taken.
///
/// ```swift
/// try await withCertificateAuthority { authority in
///     let expired = try await authority.issue("expired", subjectAltName: "IP:127.0.0.1",
///                                             validity: .between("20200101000000Z", "20200102000000Z"))
/// }
/// ```
///
/// Keys are EC P-256 (faster to make than RSA). Certificates are signed with `openssl ca`, the one
/// command of OpenSSL 3.0 that sets both ends of the validity to any date (`-startdate`, `-enddate`);
/// its database and serial files stay in the directory.
struct TestCertificateAuthority: Sendable {
    /// The directory of the CA's files and of what it issues.
    let directory: URL

    /// The CA's certificate, PEM: what a client trusts.
    var certificate: URL { directory.appendingPathComponent("ca.pem") }

    /// A certificate the CA issued, and its private key: PEM files.
    struct Issued: Sendable {
        let certificate: URL
        let key: URL
    }

    /// When an issued certificate is valid.
    enum Validity: Sendable {
        /// From now, for this many days.
        case days(Int)
        /// From one date to another, as `openssl ca` takes them: `YYYYMMDDHHMMSSZ`.
        case between(String, String)
    }

    /// `openssl ca`'s configuration: no prompt, any subject with a common name, the request's
    /// extensions (its subjectAltName) copied into the certificate.
    private static let configuration = """
        [ca]
        default_ca = throwaway
        [throwaway]
        database = index.txt
        serial = serial
        new_certs_dir = .
        default_md = sha256
        policy = any_name
        copy_extensions = copy
        unique_subject = no
        [any_name]
        commonName = supplied

        """

    /// Makes the CA's key and self-signed certificate in `directory`.
    fileprivate static func make(in directory: URL) async throws -> TestCertificateAuthority {
        try Data(configuration.utf8).write(to: directory.appendingPathComponent("ca.cnf"))
        try Data().write(to: directory.appendingPathComponent("index.txt"))
        try Data("01\n".utf8).write(to: directory.appendingPathComponent("serial"))
        try await openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=Jewzruxin Test CA", "-addext", "basicConstraints=critical,CA:true",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-keyout", "ca-key.pem", "-out", "ca.pem",
        ], in: directory)
        return TestCertificateAuthority(directory: directory)
    }

    /// Issues a server certificate, `<name>.pem` with its key `<name>-key.pem`.
    ///
    /// - Parameters:
    ///   - commonName: The subject's common name.
    ///   - subjectAltName: The names it is valid for, as openssl writes them: `IP:127.0.0.1,DNS:localhost`.
    ///   - validity: When it is valid.
    func issue(_ name: String, commonName: String = "localhost", subjectAltName: String, validity: Validity) async throws -> Issued {
        let issued = Issued(
            certificate: directory.appendingPathComponent("\(name).pem"), key: directory.appendingPathComponent("\(name)-key.pem"))
        try await Self.openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=\(commonName)",
            "-addext", "subjectAltName=\(subjectAltName)", "-keyout", issued.key.lastPathComponent, "-out", "\(name).csr",
        ], in: directory)
        let dates = switch validity {
        case .days(let days): ["-days", String(days)]
        case .between(let start, let end): ["-startdate", start, "-enddate", end]
        }
        try await Self.openssl([
            "ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca-key.pem", "-notext",
            "-in", "\(name).csr", "-out", issued.certificate.lastPathComponent,
        ] + dates, in: directory)
        return issued
    }

    /// Runs `openssl` with `arguments` in `directory`; throws unless it succeeds.
    private static func openssl(_ arguments: [String], in directory: URL) async throws {
        let status = try await runProcess(opensslPath, arguments, in: directory)
        guard status == 0 else {
            throw HelperProcessError(description: "openssl \(arguments.prefix(2).joined(separator: " ")) exited with \(status)")
        }
    }
}

/// Makes a ``TestCertificateAuthority`` in a new temporary directory for the duration of `body`, then
/// removes the directory with all it holds (servers `body` started must have stopped).
func withCertificateAuthority(_ body: (TestCertificateAuthority) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("TLSTests-CA-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(try await TestCertificateAuthority.make(in: directory))
}
