import Testing
@testable import JewzruxinAuth

@Suite("Auth-param parsing (RFC 7235)")
struct AuthenticationChallengeTests {
    typealias Parameter = AuthenticationChallenge.Parameter

    @Test("A single challenge with quoted and token parameters")
    func single() throws {
        let challenges = AuthenticationChallenge.parse(#"Digest realm="sandbox", qop="auth", algorithm=MD5, nonce="abc""#)
        let challenge = try #require(challenges.first)
        #expect(challenges.count == 1)
        #expect(challenge.scheme == "Digest")
        #expect(challenge.token68 == nil)
        #expect(challenge.parameters == [
            Parameter(name: "realm", value: "sandbox"), Parameter(name: "qop", value: "auth"),
            Parameter(name: "algorithm", value: "MD5"), Parameter(name: "nonce", value: "abc"),
        ])
    }

    @Test("RFC 7235 §4.1 example: two challenges, escaped quotes inside a value")
    func rfcExample() {
        let value = #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#
        #expect(AuthenticationChallenge.parse(value) == [
            AuthenticationChallenge(scheme: "Newauth", parameters: [
                Parameter(name: "realm", value: "apps"), Parameter(name: "type", value: "1"),
                Parameter(name: "title", value: #"Login to "apps""#),
            ]),
            AuthenticationChallenge(scheme: "Basic", parameters: [Parameter(name: "realm", value: "simple")]),
        ])
    }

    @Test("Repeated WWW-Authenticate fields joined with \", \" (as FoundationNetworking does)")
    func joinedFields() {
        let joined = [
            #"Digest realm="r", qop="auth, auth-int", algorithm=SHA-256, nonce="n1", opaque="o""#,
            #"Digest realm="r", qop="auth, auth-int", algorithm=MD5, nonce="n2", opaque="o""#,
            #"Basic realm="r", charset="UTF-8""#,
            "Negotiate",
        ].joined(separator: ", ")
        let challenges = AuthenticationChallenge.parse(joined)
        #expect(challenges.map(\.scheme) == ["Digest", "Digest", "Basic", "Negotiate"])
        #expect(challenges[0]["qop"] == "auth, auth-int")
        #expect(challenges[1]["algorithm"] == "MD5")
        #expect(challenges[2]["charset"] == "UTF-8")
        #expect(challenges[3].parameters.isEmpty && challenges[3].token68 == nil)
        #expect(AuthenticationChallenge.parse(headerValues: [joined, "Basic x"]).count == 5)
    }

    @Test("Quoted strings keep commas, equals signs and escaped backslashes")
    func quotedPunctuation() throws {
        let challenge = try #require(AuthenticationChallenge.parse(
            #"Basic realm="a, b=c, \"d\" \\ e", other="x""#).first)
        #expect(challenge["realm"] == #"a, b=c, "d" \ e"#)
        #expect(challenge["other"] == "x")
        #expect(challenge.parameters.count == 2)
    }

    @Test("token68 credentials and challenges", arguments: [
        ("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", "Basic", "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
        ("Bearer abc.def-ghi_jkl~mno+p/q=", "Bearer", "abc.def-ghi_jkl~mno+p/q="),
        ("Negotiate   YIIB  ", "Negotiate", "YIIB"),
        ("basic dGVzdDoxMjM0NQ==", "basic", "dGVzdDoxMjM0NQ=="),
        ("Basic abc=", "Basic", "abc="),
    ])
    func token68(value: String, scheme: String, token: String) throws {
        let challenges = AuthenticationChallenge.parse(value)
        let challenge = try #require(challenges.first)
        #expect(challenges.count == 1)
        #expect(challenge.scheme == scheme)
        #expect(challenge.token68 == token)
        #expect(challenge.parameters.isEmpty)
    }

    @Test("token68 followed by another challenge")
    func token68ThenChallenge() {
        let challenges = AuthenticationChallenge.parse(#"Negotiate YIIB==, Basic realm="x""#)
        #expect(challenges == [
            AuthenticationChallenge(scheme: "Negotiate", token68: "YIIB=="),
            AuthenticationChallenge(scheme: "Basic", parameters: [Parameter(name: "realm", value: "x")]),
        ])
    }

    @Test("Scheme and parameter names are case-preserved but compared case-insensitively")
    func mixedCase() throws {
        let challenge = try #require(AuthenticationChallenge.parse(#"dIgEsT ReAlM="R", NONCE=n, Qop="AUTH""#).first)
        #expect(challenge.scheme == "dIgEsT")
        #expect(challenge.hasScheme("Digest") && challenge.hasScheme("DIGEST"))
        #expect(!challenge.hasScheme("Digest2"))
        #expect(challenge["realm"] == "R")
        #expect(challenge["nonce"] == "n")
        #expect(challenge["QOP"] == "AUTH")
        #expect(challenge.parameters.map(\.name) == ["ReAlM", "NONCE", "Qop"])
        #expect(challenge["missing"] == nil)
    }

    @Test("Extra whitespace, tabs, empty list elements and spaces around '='")
    func whitespace() throws {
        let challenges = AuthenticationChallenge.parse(
            " ,  Digest \t realm = \"r\" ,, ,nonce\t=\tabc  , opaque= \"o\" ,  ,  Basic   realm=\"b\" , ")
        #expect(challenges.count == 2)
        let digest = try #require(challenges.first)
        #expect(digest.parameters == [
            Parameter(name: "realm", value: "r"), Parameter(name: "nonce", value: "abc"),
            Parameter(name: "opaque", value: "o"),
        ])
        #expect(challenges.last?["realm"] == "b")
    }

    @Test("Lenient unquoted values that are not strict tokens")
    func lenientUnquoted() throws {
        let challenge = try #require(AuthenticationChallenge.parse("Digest nonce=ab/c+d==, realm=my realm").first)
        #expect(challenge["nonce"] == "ab/c+d==")
        #expect(challenge["realm"] == "my realm")
    }

    @Test("Duplicate parameter names: the first wins, all are kept")
    func duplicates() throws {
        let challenge = try #require(AuthenticationChallenge.parse(#"Basic realm="a", realm="b""#).first)
        #expect(challenge["realm"] == "a")
        #expect(challenge.parameters.count == 2)
    }

    @Test("Non-ASCII inside quoted strings survives")
    func nonASCII() throws {
        let challenge = try #require(AuthenticationChallenge.parse(#"Basic realm="Zürich ☃""#).first)
        #expect(challenge["realm"] == "Zürich ☃")
    }

    @Test("Empty and whitespace-only values give no challenges", arguments: ["", " ", ",", " , ,\t"])
    func empty(value: String) {
        #expect(AuthenticationChallenge.parse(value).isEmpty)
    }

    @Test("Unterminated quoted string: earlier parameters and challenges survive")
    func unterminated() {
        let challenges = AuthenticationChallenge.parse(#"Basic realm="ok", Digest realm="r", nonce="abc, opaque=x"#)
        #expect(challenges.count == 2)
        #expect(challenges[0]["realm"] == "ok")
        #expect(challenges[1]["realm"] == "r")
        #expect(challenges[1]["nonce"] == nil)
        #expect(challenges[1]["opaque"] == nil)
        #expect(AuthenticationChallenge.parse(#"Basic realm="a\"#).first?.parameters.isEmpty == true)
    }

    @Test("Missing '=' or value: the piece is skipped, the rest is parsed")
    func missingEquals() throws {
        let challenge = try #require(AuthenticationChallenge.parse(#"Digest realm="r", nonce=, opaque="o""#).first)
        #expect(challenge["realm"] == "r")
        #expect(challenge["nonce"] == nil)
        #expect(challenge["opaque"] == "o")
        // A bare word after a comma starts a new (parameterless) challenge.
        #expect(AuthenticationChallenge.parse(#"Digest realm="r", stale"#).map(\.scheme) == ["Digest", "stale"])
        // Junk right after a quoted value is skipped up to the next comma.
        let junk = try #require(AuthenticationChallenge.parse(#"Digest realm="r"xyz, nonce="n""#).first)
        #expect(junk["realm"] == "r" && junk["nonce"] == "n")
    }

    @Test("Garbage never crashes", arguments: [
        "=", "==", "\"", "\"\"\"", "\\", "Basic \"", "Basic =", "Basic ==,==", "=Basic realm=x",
        "Digest realm=\"\\", "Digest ,,,=,=,\"", "realm=\"x\"", "Basic realm=\"a\" \"b\", =\"c\"",
        "\u{0}\u{1}Basic\u{7F}", "Ünïcødé ☃ realm=☃", String(repeating: "a=\"b\\\", ", count: 200),
        String(repeating: ",", count: 1000), "Basic realm=\"x\"\r\nInjected: y",
    ])
    func garbage(value: String) {
        let challenges = AuthenticationChallenge.parse(value)
        #expect(challenges.count <= value.utf8.count)
    }

    @Test("Garbage: a leading parameter without a scheme is dropped")
    func leadingParameter() {
        #expect(AuthenticationChallenge.parse(#"realm="x", Basic realm="y""#).map(\.scheme) == ["Basic"])
    }

    @Test("An Authorization: Digest value parses as one element")
    func digestCredentials() throws {
        let value = #"Digest username="Mufasa", realm="http-auth@example.org", uri="/dir/index.html", "#
            + #"algorithm=MD5, nonce="7ypf/xlj9XXw", nc=00000001, cnonce="f2/wE4q7", qop=auth, "#
            + #"response="8ca523f5e9506fed4657c9700eebdbec", opaque="FQhe/qaU""#
        let credentials = AuthenticationChallenge.parse(value)
        #expect(credentials.count == 1)
        #expect(credentials.first?["nc"] == "00000001")
        #expect(credentials.first?["uri"] == "/dir/index.html")
        #expect(credentials.first?["qop"] == "auth")
    }

    @Test("quoted(_:) escapes quotes and backslashes and round-trips through the parser")
    func quoting() throws {
        let raw = #"a "quoted" \ value, with = signs"#
        #expect(AuthenticationChallenge.quoted(raw) == #""a \"quoted\" \\ value, with = signs""#)
        #expect(AuthenticationChallenge.quoted("a\r\nb") == #""ab""#)
        let parsed = try #require(AuthenticationChallenge.parse("X v=\(AuthenticationChallenge.quoted(raw))").first)
        #expect(parsed["v"] == raw)
    }
}
