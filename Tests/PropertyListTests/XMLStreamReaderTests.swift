import PropertyList
import Testing

struct XMLStreamReaderTests {
    private func events(_ text: String) throws -> [String] {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { buffer throws(PropertyListError) in
            var reader = try XMLStreamReader(bytes: buffer)
            var result: [String] = []
            while let node = try reader.next() {
                switch node {
                case .startElement: result.append("<\(reader.localName) \(reader.attribute("type") ?? "-") \(reader.attribute("xml:lang") ?? "-")>")
                case .endElement: result.append("</>")
                case .text: result.append(reader.text)
                }
            }
            return result
        }
    }

    @Test func reportsElementsAttributesTextAndEmptyElementsAsStartAndEnd() throws {
        let found = try events("<?xml version=\"1.0\"?>\n<!-- skipped --><a xmlns=\"urn:x\">\n  <b type=\"t\"/>\n  <c xml:lang=\"de\">hi &amp; bye</c>\n</a>\n")
        #expect(found == ["<a - ->", "<b t ->", "</>", "<c - de>", "hi & bye", "</>", "</>"])
    }

    @Test func malformedXMLThrowsWithLine() throws {
        #expect { try events("<a>\n<b>\n</a>") } throws: { error in
            guard let error = error as? PropertyListError, case .lineColumn(let line, _) = error.location else { return false }
            return error.code == .malformedXML && line == 3
        }
    }
}
