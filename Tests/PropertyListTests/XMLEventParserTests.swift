import Foundation
import PropertyList
import TestSupport
import Testing

struct XMLEventParserTests {
    /// Writes down every event, with the `type` and `xml:lang` attributes of each start.
    private final class Recorder: XMLEventHandler {
        var events: [String] = []
        private var text: [UInt8] = []

        func startElement(_ element: XMLElementStart) throws(PropertyListError) {
            flushText()
            if element.localNameIs("stop") { throw PropertyListError(.unexpectedElement, at: .lineColumn(line: element.line, column: 1), "stop") }
            events.append(
                "<\(element.localName) \(element.attribute("type") ?? "-") \(element.attribute("xml:lang") ?? "-") \(element.hasAttribute("lang") ? "L" : "-")>"
            )
        }

        func endElement() throws(PropertyListError) {
            flushText()
            events.append("</>")
        }

        func text(_ utf8: UnsafeBufferPointer<UInt8>) { text.append(contentsOf: utf8) }

        private func flushText() {
            let run = String(decoding: text, as: UTF8.self)
            if !run.allSatisfy(\.isWhitespace) { events.append(run) }
            text.removeAll()
        }
    }

    private func events(_ text: String) throws -> [String] {
        let recorder = Recorder()
        try Array(text.utf8).withUnsafeBytes { buffer in try XMLEventParser.parse(buffer, handler: recorder) }
        return recorder.events
    }

    /// Found by the mime-xml fuzz target (AddressSanitizer): a DTD validity
    /// error reached the error handler with the parser context where the
    /// handler expected its sink, and was read as one.
    @Test func validityErrorInTheInternalSubsetDoesNotCrash() throws {
        let fixture = Repository.root.appendingPathComponent("Tests/PropertyListTests/Fixtures/fuzz/crash-dtd-validity-error.xml")
        let text = try String(contentsOf: fixture, encoding: .utf8)
        let found = try? events(text)
        #expect(found == nil || found == ["<mime-info - - ->", "</>"])
    }

    @Test func reportsElementsAttributesTextAndEmptyElementsAsStartAndEnd() throws {
        let found = try events(
            "<?xml version=\"1.0\"?>\n<!-- skipped --><a xmlns=\"urn:x\">\n  <b type=\"t\"/>\n  <c xml:lang=\"de\">hi &amp; <![CDATA[<bye>]]></c>\n</a>\n")
        #expect(found == ["<a - - ->", "<b t - ->", "</>", "<c - de ->", "hi & <bye>", "</>", "</>"])
    }

    @Test func malformedXMLThrowsWithLine() throws {
        #expect { try events("<a>\n<b>\n</a>") } throws: { error in
            guard let error = error as? PropertyListError, case .lineColumn(let line, _) = error.location else { return false }
            return error.code == .malformedXML && line == 3
        }
    }

    @Test func refusesEntityDeclarationsAndUndeclaredReferences() throws {
        // A "billion laughs" prologue: refused at the first declaration, before any expansion.
        let bomb = "<!DOCTYPE a [\n<!ENTITY x \"xx\">\n<!ENTITY y \"&x;&x;\">\n]>\n<a>&y;</a>"
        #expect { try events(bomb) } throws: { error in
            guard let error = error as? PropertyListError, case .lineColumn(let line, _) = error.location else { return false }
            return error.code == .malformedXML && line == 2 && error.message.contains("entity")
        }
        // An external entity would be a file read; it is never declared, let alone loaded.
        #expect(throws: PropertyListError.self) { try events("<!DOCTYPE a [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><a>&e;</a>") }
        #expect(throws: PropertyListError.self) { try events("<a>&undeclared;</a>") }
    }

    @Test func passesOverInternalSubsetDeclarationsCommentsAndInstructions() throws {
        // Only the property-list reader refuses these; other XML formats may carry them.
        let found = try events(
            "<!DOCTYPE a [<!ELEMENT a ANY><!ATTLIST a t CDATA #IMPLIED><!NOTATION n SYSTEM \"n\"><!-- c -->]><a>x<!-- y -->z<?p?></a>")
        #expect(found == ["<a - - ->", "xz", "</>"])
    }

    @Test func anErrorTheHandlerThrowsStopsTheParse() throws {
        #expect { try events("<a>\n<stop/><b/></a>") } throws: { error in
            guard let error = error as? PropertyListError, case .lineColumn(let line, _) = error.location else { return false }
            return error.code == .unexpectedElement && line == 2
        }
    }
}
