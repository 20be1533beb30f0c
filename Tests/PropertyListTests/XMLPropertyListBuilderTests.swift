import Foundation
import PropertyList
import TestSupport
import Testing

/// What the XML reader's events from libxml2's SAX2 parser could get wrong
/// that the rest of the suite does not reach: `<x/>` (one tag, one start and
/// one end event) against `<x></x>`, text that arrives in several runs,
/// declarations in the internal subset, entity references libxml2 lets pass.
/// Values are compared with Python's `plistlib` on the same bytes; error
/// locations are counted by hand, as written beside each.
struct XMLPropertyListBuilderTests {
    private func read(_ text: String, limits: PropertyListLimits = .default) throws(PropertyListError) -> PropertyListValue {
        try XMLPropertyListReader(limits: limits).read(Data(text.utf8))
    }

    private func readError(_ text: String, limits: PropertyListLimits = .default) -> PropertyListError? {
        do {
            _ = try read(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    /// What `plistlib.loads` makes of `text`: its value, written as a binary
    /// property list by `plistlib.dumps` and read back, or the error it raised.
    private func plistlib(_ text: String) throws -> Result<PropertyListValue, PlistlibRefusal> {
        let script = """
            import plistlib, sys
            try:
                value = plistlib.loads(sys.stdin.buffer.read())
            except Exception as error:
                sys.stdout.write("refused: %s" % error)
                sys.exit(0)
            sys.stdout.buffer.write(plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False))
            """
        let printed = try PythonScript.run(script, arguments: [], input: Data(text.utf8))
        if printed.starts(with: Data("refused: ".utf8)) {
            return .failure(PlistlibRefusal(message: String(decoding: printed.dropFirst(9), as: UTF8.self)))
        }
        return .success(try BinaryPropertyListReader().read(printed))
    }

    struct PlistlibRefusal: Error, Equatable {
        var message: String
    }

    // MARK: Empty elements

    @Test func readsEmptyAndPairedElementsAsPlistlibDoes() throws {
        // The long string crosses libxml2's 300-byte runs of text, with a
        // character reference, an entity, a CDATA section and a comment inside.
        let inside = "&#233;" + String(repeating: "y", count: 20) + "&amp;<![CDATA[<z>]]><!-- c -->"
        let long = String(repeating: "x", count: 290) + inside + String(repeating: "w", count: 300)
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>t</key><true/><key>t2</key><true></true><key>f</key><false/>
            <key>d</key><dict/><key>d2</key><dict></dict><key>d3</key><dict>
            </dict>
            <key>a</key><array/><key>a2</key><array></array>
            <key>s</key><string/><key>s2</key><string></string><key>k</key><string>after</string>
            <key>data</key><data/><key>n</key><integer>7</integer>
            <key>long</key><string>\(long)</string>
            </dict></plist>
            """
        let expected = try plistlib(text).get()
        #expect(try read(text) == expected)
        // 290 x, é, 20 y, &, <z>, 300 w.
        let longCount = expected["long"]?.stringValue?.count
        #expect(longCount == 615)
    }

    @Test func countsAnEmptyElementAsOneTagInErrorLocations() throws {
        // Columns by hand: <plist> 1-7, <array> 8-14, <true/> 15-21, <true> 22-27,
        // </true> 28-34, <dict/> 35-41, <dict> 42-47, </dict> 48-54: <key> starts at 55.
        let text = "<plist><array><true/><true></true><dict/><dict></dict><key>k</key></array></plist>"
        let error = try #require(readError(text))
        #expect(error.code == .unexpectedElement)
        #expect(error.message == "<key> in an array")
        #expect(error.location == .lineColumn(line: 1, column: 55))
        #expect(error.keyPath == [.index(4)])
        guard case .failure(let refusal) = try plistlib(text) else {
            Issue.record("plistlib read a <key> in an array")
            return
        }
        #expect(refusal.message.contains("unexpected key"))

        // The same after the other spelling of each: <true></true> 15-27, <true/> 28-34,
        // <dict></dict> 35-47, <dict/> 48-54: <key> still starts at 55.
        let swapped = try #require(readError("<plist><array><true></true><true/><dict></dict><dict/><key>k</key></array></plist>"))
        #expect(swapped.location == .lineColumn(line: 1, column: 55))
        #expect(swapped.keyPath == [.index(4)])
    }

    @Test func locatesAnErrorAtTheEndOfAnEmptyContainerByItsOneTag() throws {
        // The 3rd value is the first over the limit of 2. <plist> 1-7, <array> 8-14,
        // <string/> 15-23, <array/> 24-31, <dict/> starts at 32; <dict></dict> ends at </dict>, 38.
        let limits = PropertyListLimits(maximumObjectCount: 2)
        let empty = try #require(readError("<plist><array><string/><array/><dict/></array></plist>", limits: limits))
        #expect(empty.code == .limitExceeded(.objectCount))
        #expect(empty.location == .lineColumn(line: 1, column: 32))
        let paired = try #require(readError("<plist><array><string/><array/><dict></dict></array></plist>", limits: limits))
        #expect(paired.location == .lineColumn(line: 1, column: 38))
    }

    // MARK: Text outside a value element

    @Test func gathersStrayTextArrivingInSeveralRuns() throws {
        // 350 spaces fill libxml2's first 300-byte run; the reference is a run of its own.
        let text = "<plist><array>" + String(repeating: " ", count: 350) + "one &#x26; two\n\n<true/></array></plist>"
        let error = try #require(readError(text))
        #expect(error.code == .unexpectedElement)
        #expect(error.message == "text \"one & two\" outside a value element")
        // Where the text starts: after <array>, which ends at column 14.
        #expect(error.location == .lineColumn(line: 1, column: 15))
        #expect(error.keyPath == [.index(0)])

        // Over 40 characters, the excerpt is cut; the reference at 39 is in it.
        let long = "<plist><array>\n" + String(repeating: "a", count: 38) + "&#233;" + String(repeating: "b", count: 400) + "<true/></array></plist>"
        let cut = try #require(readError(long))
        #expect(cut.message == "text \"\(String(repeating: "a", count: 38))éb…\" outside a value element")
    }

    @Test func endsAStrayTextNodeAtACommentOrCDATASection() throws {
        // libxml2's tree reader saw "ab", then a CDATA node, then "ef": the first is reported.
        let cdata = try #require(readError("<plist><array>ab<![CDATA[cd]]>ef<true/></array></plist>"))
        #expect(cdata.message == "text \"ab\" outside a value element")
        #expect(cdata.location == .lineColumn(line: 1, column: 15))
        let inCDATA = try #require(readError("<plist><array> <![CDATA[cd]]> <true/></array></plist>"))
        #expect(inCDATA.message == "text \"cd\" outside a value element")
        let comment = try #require(readError("<plist><array> <!-- c --> cd <?pi x?> ef <true/></array></plist>"))
        #expect(comment.message == "text \"cd\" outside a value element")
        // White space around comments between values is layout.
        #expect(try read("<plist><array> <!-- c -->\n <true/> <?pi?> </array></plist>") == [true])
    }

    // MARK: Declarations and entities

    @Test func refusesElementAndAttributeListDeclarationsAtTheDoctype() throws {
        let text = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
            <!ELEMENT plist ANY>
            <!ATTLIST plist version CDATA #IMPLIED kind (a|b) "a">
            ]>
            <plist><true/></plist>
            """
        let error = try #require(readError(text))
        #expect(error.code == .malformedXML)
        #expect(error.message == "declarations inside <!DOCTYPE plist [...]> are not supported")
        #expect(error.location == .lineColumn(line: 2, column: 1))
        // plistlib (expat) ignores them: the document is otherwise a property list.
        #expect(try plistlib(text).get() == true)

        for subset in ["<!NOTATION n SYSTEM \"n\">", "<!-- c -->", "<?pi x?>"] {
            let refused = try #require(readError("<!DOCTYPE plist [\(subset)]><plist><true/></plist>"), "\(subset)")
            #expect(refused.message == "declarations inside <!DOCTYPE plist [...]> are not supported", "\(subset)")
            #expect(refused.location == .lineColumn(line: 1, column: 1), "\(subset)")
        }
        #expect(try read("<!DOCTYPE plist [ ]><!-- after --><plist><true/></plist>") == true)
    }

    @Test func refusesAnEntityDeclarationFirstWhereItStands() throws {
        // The element declaration comes first; the entity is what is reported, at its line 3, column 3.
        let text = "<!DOCTYPE plist [\n<!ELEMENT plist ANY>\n  <!ENTITY e \"x\">\n]>\n<plist><string>&e;</string></plist>"
        let error = try #require(readError(text))
        #expect(error.code == .malformedXML)
        #expect(error.message == "entity declarations/references are not supported")
        #expect(error.location == .lineColumn(line: 3, column: 3))
        // plistlib refuses the declaration too.
        let oracle = try plistlib(text)
        #expect(throws: PlistlibRefusal.self) { try oracle.get() }

        let parameter = try #require(readError("<!DOCTYPE plist [\n <!ENTITY % p \"x\">\n]>\n<plist><true/></plist>"))
        #expect(parameter.message == "entity declarations/references are not supported")
        #expect(parameter.location == .lineColumn(line: 2, column: 2))
    }

    @Test func refusesAReferenceToAnUndeclaredEntityWhenTheDocumentNamesAnExternalDTD() throws {
        // libxml2 reads no external DTD, so it cannot tell the entity is undeclared and lets
        // the reference pass; the reader refuses it where the text starts: after <string>
        // (line 2, columns 8-15).
        let text = "<!DOCTYPE plist SYSTEM \"PropertyList-1.0.dtd\">\n<plist><string>a&nope;b</string></plist>"
        let error = try #require(readError(text))
        #expect(error.code == .malformedXML)
        #expect(error.message == "entity declarations/references are not supported")
        #expect(error.location == .lineColumn(line: 2, column: 16))
    }

    @Test func refusesPrefixedNamesAsUnknownElements() throws {
        // <plist> 1-7; <x:string …> starts at 8.
        let declared = try #require(readError("<plist><x:string xmlns:x=\"urn:x\">a</x:string></plist>"))
        #expect(declared.code == .unexpectedElement)
        #expect(declared.message == "unknown element <x:string>")
        #expect(declared.location == .lineColumn(line: 1, column: 8))
        let undeclared = try #require(readError("<plist><x:string>a</x:string></plist>"))
        #expect(undeclared.message == "unknown element <x:string>")
        // A default namespace leaves the names as they are.
        #expect(try read("<plist xmlns=\"urn:x\"><string>a</string></plist>") == "a")
    }

    // MARK: libxml2's errors

    @Test func reportsLibXML2sErrorsAsItsTreeReaderDid() throws {
        // Expected: libxml2 2.9's xmlTextReader (xmlReaderForMemory, the reader this one
        // replaced) on the same bytes, run from a C program: it pushed the input in pieces,
        // and these messages and places are those of libxml2's push parser. A document
        // that is not well-formed is reported as such before a value's error earlier in it.
        let cases: [(text: String, line: Int, column: Int, keyPath: PropertyListKeyPath, message: String)] = [
            ("<pl", 1, 1, [], "Extra content at the end of the document"),
            ("bplist00", 1, 1, [], "Document is empty"),
            ("<plist><array><true/>", 1, 22, [.index(1)], "Extra content at the end of the document"),
            ("<plist><array><integer>zz</integer>", 1, 36, [.index(0)], "Extra content at the end of the document"),
            (
                "<plist><dict><string>x</string><key>a</key><string>x</strin></dict></plist>", 1, 61, [],
                "Opening and ending tag mismatch: string line 1 and strin"
            ),
        ]
        for (text, line, column, keyPath, message) in cases {
            let error = try #require(readError(text), "\(text)")
            #expect(error.code == .malformedXML, "\(text)")
            #expect(error.message == message, "\(text)")
            #expect(error.location == .lineColumn(line: line, column: column), "\(text)")
            #expect(error.keyPath == keyPath, "\(text)")
        }
    }
}
