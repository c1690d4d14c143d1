import Testing
@testable import PlaygroundKit

@Suite("LineEditor and KeyDecoder: editing a line at the prompt")
struct LineEditorTests {
    private func typed(_ text: String, into editor: inout LineEditor) {
        for character in text { editor.handle(.character(character)) }
    }

    @Test("characters are inserted at the cursor; left, right, home and end move it")
    func insertAndMove() {
        var editor = LineEditor()
        typed("GT /", into: &editor)
        editor.handle(.home)
        editor.handle(.right)
        typed("E", into: &editor)
        editor.handle(.end)
        typed("x", into: &editor)
        editor.handle(.left)
        editor.handle(.left)

        #expect(editor.text == "GET /x")
        #expect(editor.cursor == 4)
        #expect(editor.handle(.enter) == .submit("GET /x"))
    }

    @Test("backspace, delete, Ctrl-U, Ctrl-K and Ctrl-W delete")
    func deletions() {
        var editor = LineEditor()
        typed("GET /hello/ a=1", into: &editor)
        editor.handle(.deleteWordBefore)
        #expect(editor.text == "GET /hello/ ")
        editor.handle(.deleteWordBefore)
        #expect(editor.text == "GET ")
        editor.handle(.backspace)
        editor.handle(.home)
        editor.handle(.delete)
        #expect(editor.text == "ET")
        editor.handle(.right)
        editor.handle(.deleteToEnd)
        #expect(editor.text == "E")
        editor.handle(.end)
        editor.handle(.deleteToStart)
        #expect(editor.text == "")
        #expect(editor.cursor == 0)
        editor.handle(.backspace)
        editor.handle(.delete)
        #expect(editor.text == "")
    }

    @Test("words: Alt-B and Alt-F jump over them")
    func words() {
        var editor = LineEditor()
        typed("POST /x  a=1", into: &editor)
        editor.handle(.wordLeft)
        #expect(editor.cursor == 9)
        editor.handle(.wordLeft)
        #expect(editor.cursor == 5)
        editor.handle(.wordRight)
        #expect(editor.cursor == 7)
    }

    @Test("up and down walk the history and come back to the line being typed")
    func history() {
        var editor = LineEditor(history: ["GET /a", "GET /b"])
        typed("dra", into: &editor)
        editor.handle(.up)
        #expect(editor.text == "GET /b")
        editor.handle(.up)
        editor.handle(.up)
        #expect(editor.text == "GET /a")
        editor.handle(.down)
        #expect(editor.text == "GET /b")
        editor.handle(.down)
        #expect(editor.text == "dra")
        #expect(editor.cursor == 3)
        editor.handle(.down)
        #expect(editor.text == "dra")
    }

    @Test("Ctrl-C clears a line, and on an empty line interrupts; Ctrl-D leaves on an empty line, else deletes")
    func controlKeys() {
        var editor = LineEditor()
        typed("abc", into: &editor)
        #expect(editor.handle(.interrupt) == .editing)
        #expect(editor.text == "")
        #expect(editor.handle(.interrupt) == .interrupted)
        typed("ab", into: &editor)
        editor.handle(.home)
        #expect(editor.handle(.endOfInput) == .editing)
        #expect(editor.text == "b")
        editor.handle(.deleteToEnd)
        #expect(editor.handle(.endOfInput) == .endOfInput)
        #expect(editor.handle(.clearScreen) == .clearScreen)
    }

    @Test("render redraws the line in place and puts the cursor back")
    func render() {
        var editor = LineEditor()
        typed("GET /hello/", into: &editor)
        editor.handle(.left)
        editor.handle(.left)

        #expect(editor.render(prompt: "> ", promptWidth: 2, columns: 80) == "\r> GET /hello/\u{1B}[K\u{1B}[2D")
        editor.handle(.end)
        #expect(editor.render(prompt: "> ", promptWidth: 2, columns: 80) == "\r> GET /hello/\u{1B}[K")
    }

    @Test("a line wider than the terminal scrolls so the cursor stays visible")
    func renderScrolls() {
        var editor = LineEditor()
        typed("0123456789", into: &editor)
        // 10 columns: 2 for the prompt, 1 kept free, 7 for the text.
        #expect(editor.render(prompt: "> ", promptWidth: 2, columns: 10) == "\r> 456789\u{1B}[K")
        editor.handle(.home)
        #expect(editor.render(prompt: "> ", promptWidth: 2, columns: 10) == "\r> 0123456\u{1B}[K\u{1B}[7D")
    }

    // MARK: KeyDecoder

    @Test("control bytes and escape sequences become keys")
    func decoding() {
        var decoder = KeyDecoder()
        let bytes: [UInt8] = [0x61, 0x01, 0x05, 0x02, 0x06, 0x10, 0x0E, 0x15, 0x0B, 0x17, 0x03, 0x04, 0x0C, 0x7F, 0x08, 0x0D, 0x0A]
        #expect(decoder.feed(bytes) == [
            .character("a"), .home, .end, .left, .right, .up, .down, .deleteToStart, .deleteToEnd, .deleteWordBefore,
            .interrupt, .endOfInput, .clearScreen, .backspace, .backspace, .enter, .enter,
        ])
        #expect(decoder.feed(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D\u{1B}[H\u{1B}[F\u{1B}OH\u{1B}OF".utf8))
            == [.up, .down, .right, .left, .home, .end, .home, .end])
        #expect(decoder.feed(Array("\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~\u{1B}[3~".utf8)) == [.home, .end, .home, .end, .delete])
        #expect(decoder.feed(Array("\u{1B}[1;5C\u{1B}[1;3D\u{1B}b\u{1B}f\u{1B}\u{7F}".utf8))
            == [.wordRight, .wordLeft, .wordLeft, .wordRight, .deleteWordBefore])
    }

    @Test("UTF-8 and sequences split across reads are completed; unknown sequences vanish")
    func splitAndUnknown() {
        var decoder = KeyDecoder()
        let euro = Array("€".utf8)
        #expect(decoder.feed([euro[0]]) == [])
        #expect(decoder.feed(Array(euro[1...]) + [0x1B]) == [.character("€")])
        #expect(decoder.feed([UInt8(ascii: "["), UInt8(ascii: "A")]) == [.up])
        #expect(decoder.feed(Array("\u{1B}[15~x\u{1B}[2Jy".utf8)) == [.character("x"), .character("y")])
        #expect(decoder.feed([0xC3, 0x41]) == [.character("A")])
    }
}
