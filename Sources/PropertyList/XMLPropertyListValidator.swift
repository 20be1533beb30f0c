#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checks XML property-list documents against a DTD, such as
/// `Schemas/PropertyList-1.0.dtd`, with libxml2's validator.
///
/// The DTD given here is used whatever the document's `DOCTYPE` names: the
/// document's external DTD is never loaded, the network is never used and
/// entities are not expanded. A document declaring entities gets a finding
/// for that, as `XMLPropertyListReader` refuses such documents.
///
/// A validator is not `Sendable`: libxml2 gives no promise that one parsed
/// DTD may be used by several threads at once.
public struct XMLPropertyListValidator {
    private let definition: XMLDocumentTypeDefinition

    /// Parses the DTD in `dtd`.
    ///
    /// - Throws: `PropertyListError` with code `.malformedXML`, with libxml2's
    ///   message and the line and column in the DTD, when it cannot be parsed.
    public init(dtd: UnsafeRawBufferPointer) throws(PropertyListError) {
        let collector = XMLDiagnosticCollector()
        let parsed = withXMLErrors(collectedBy: collector) { XMLDocumentTypeDefinition(parsing: dtd) }
        if let parsed, collector.firstError == nil {
            definition = parsed
            return
        }
        let diagnostic = collector.firstError
        throw PropertyListError(
            .malformedXML,
            at: .lineColumn(line: max(diagnostic?.line ?? 1, 1), column: max(diagnostic?.column ?? 1, 1)),
            "the DTD cannot be parsed: \(diagnostic?.message ?? "libxml2 gave no reason")")
    }

    /// Parses the DTD in `dtd`.
    ///
    /// - Throws: `PropertyListError`, as `init(dtd:)` on bytes.
    public init(dtd: Data) throws(PropertyListError) {
        let result: Result<XMLDocumentTypeDefinition, PropertyListError> = dtd.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try XMLPropertyListValidator(dtd: buffer).definition }
        }
        definition = try result.get()
    }

    /// Validates the document in `bytes`, returning every problem found;
    /// empty when the document is valid.
    ///
    /// Each finding is a `PropertyListError` with code `.malformedXML` with the
    /// line (and column, when libxml2 knows it; validity findings name only
    /// the line of the element's start tag and give column 1) and libxml2's
    /// message. A document that is not well-formed gets only libxml2's
    /// parse errors; one declaring entities, only that finding (and any
    /// parse errors before it). At most 100 findings come from libxml2.
    ///
    /// The document is prepared as `XMLPropertyListReader` prepares it:
    /// UTF-32 is transcoded, and raw control characters and carriage returns
    /// in text, which CoreFoundation writes and reads, are accepted. It is
    /// read once as a stream, in memory that grows with the nesting depth,
    /// not with the document's size.
    public func validate(_ bytes: UnsafeRawBufferPointer) -> [PropertyListError] {
        let input: XMLParserInput
        do throws(PropertyListError) { input = try XMLParserInput(bytes) } catch { return [error] }
        return input.withBytes(of: bytes) { _, parserBytes, options in validate(parsing: parserBytes, options: options) }
    }

    /// Validates `bytes` as `XMLParserInput` prepared them, so the validator
    /// reads what `XMLPropertyListReader` reads.
    private func validate(parsing bytes: UnsafeRawBufferPointer, options: XMLParseOptions) -> [PropertyListError] {
        let libxml2Problems = XMLDiagnosticCollector()
        return withXMLErrors(collectedBy: libxml2Problems) { () -> [PropertyListError] in
            guard let document = XMLValidationDocument(dtd: definition) else { return [] }
            let checker = XMLDTDStreamValidator(
                document: document, libxml2Problems: libxml2Problems,
                limit: XMLDiagnosticCollector.maximumKept)
            let sink = XMLValidationSink(handler: checker)
            checker.sink = sink
            let wellFormed = parseXMLForValidation(bytes, options: options, into: sink)
            let parseErrors = sink.diagnostics.diagnostics.filter(\.isError).map { diagnostic in
                PropertyListError(
                    .malformedXML, at: .lineColumn(line: max(diagnostic.line, 1), column: max(diagnostic.column, 1)),
                    diagnostic.message)
            }
            if checker.declaresEntities {
                return [
                    PropertyListError(
                        .malformedXML, at: .lineColumn(line: 1, column: 1),
                        "entity declarations/references are not supported")
                ] + parseErrors
            }
            guard wellFormed else { return parseErrors }
            var findings: [PropertyListError] = []
            if let root = checker.root, root.name != "plist" {
                findings.append(
                    PropertyListError(
                        .malformedXML, at: .lineColumn(line: max(root.line, 1), column: 1),
                        "the root element is <\(root.name)>, not <plist>"))
            }
            return findings + (parseErrors + checker.findings.all).prefix(XMLDiagnosticCollector.maximumKept)
        }
    }

    /// Validates the document in `data`, as `validate(_:)` on bytes.
    public func validate(_ data: Data) -> [PropertyListError] {
        data.withUnsafeBytes { validate($0) }
    }
}
