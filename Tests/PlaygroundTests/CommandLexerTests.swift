import Testing
@testable import PlaygroundKit

@Suite("CommandLexer: words, quotes, ; and comments")
struct CommandLexerTests {
    @Test("words are separated by spaces and tabs")
    func words() throws {
        #expect(try CommandLexer.commands(in: "  GET\t/hello/   a=1 ") == [["GET", "/hello/", "a=1"]])
    }

    @Test(arguments: [
        (#"POST /x 'name=Jane Doe'"#, ["POST", "/x", "name=Jane Doe"]),
        (#"POST /x "name=Jane Doe""#, ["POST", "/x", "name=Jane Doe"]),
        (#"POST /x name='Jane Doe'"#, ["POST", "/x", "name=Jane Doe"]),
        (#"a "say \"hi\" \\ \n""#, ["a", #"say "hi" \ \n"#]),
        (#"a 'it''s'"#, ["a", "its"]),
        (#"a 'x;y' "#, ["a", "x;y"]),
        (#"a x\ y x\;y"#, ["a", "x y", "x;y"]),
        (#"a '' """#, ["a", "", ""]),
        (#"tags:='["a","b"]'"#, [#"tags:=["a","b"]"#]),
        (#"a trailing\"#, ["a", #"trailing\"#]),
    ])
    func quoting(line: String, words: [String]) throws {
        #expect(try CommandLexer.words(in: line) == words)
    }

    @Test("an unquoted ; separates commands; empty commands are dropped")
    func semicolons() throws {
        #expect(try CommandLexer.commands(in: "GET /hello/; text;;  ; headers") == [["GET", "/hello/"], ["text"], ["headers"]])
        #expect(try CommandLexer.commands(in: "GET /a;text") == [["GET", "/a"], ["text"]])
    }

    @Test("# starts a comment at the start of a word only")
    func comments() throws {
        #expect(try CommandLexer.commands(in: "# nothing") == [])
        #expect(try CommandLexer.commands(in: "GET /x#frag # the rest; text") == [["GET", "/x#frag"]])
        #expect(try CommandLexer.commands(in: "GET '#quoted'") == [["GET", "#quoted"]])
    }

    @Test("an unterminated quote is an error")
    func unterminated() {
        #expect(throws: PlaygroundError("unterminated ' quote")) { try CommandLexer.commands(in: "GET 'abc") }
        #expect(throws: PlaygroundError("unterminated \" quote")) { try CommandLexer.commands(in: #"GET "abc\""#) }
    }

    @Test("words(in:) refuses several commands")
    func oneCommand() {
        #expect(throws: PlaygroundError("expected one command, found 2")) { try CommandLexer.words(in: "a; b") }
    }

    @Test("quoted(_:) gives text the lexer reads back as the same word", arguments: [
        "plain", "", "two words", "it's", #"back\slash"#, "semi;colon", "#hash", #"{"a":"b c"}"#,
    ])
    func quotedRoundTrip(word: String) throws {
        #expect(try CommandLexer.words(in: "x " + CommandLexer.quoted(word)) == ["x", word])
    }
}
