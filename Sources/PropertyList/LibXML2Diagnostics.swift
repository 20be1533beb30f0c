import CLibXML2

/// One problem libxml2 reported.
struct XMLDiagnostic {
    /// The 1-based line, or 0 when libxml2 gave none.
    var line: Int
    /// The 1-based column, or 0 when libxml2 gave none.
    var column: Int
    /// libxml2's message, trimmed.
    var message: String
    /// True for errors; false for warnings.
    var isError: Bool
    /// True when libxml2 stopped because the elements nest deeper than it allows.
    var isDepthLimit: Bool
}

/// Collects the problems libxml2 reports through a structured error handler.
final class XMLDiagnosticCollector {
    /// At most this many are kept; hostile input can raise thousands.
    static let maximumKept = 100
    private(set) var diagnostics: [XMLDiagnostic] = []

    /// The first error, if any.
    var firstError: XMLDiagnostic? { diagnostics.first { $0.isError } }

    /// Returns what was collected and starts afresh, so that a long run can
    /// place each problem before the next call to libxml2.
    func takeDiagnostics() -> [XMLDiagnostic] {
        defer { diagnostics.removeAll(keepingCapacity: true) }
        return diagnostics
    }

    func record(_ error: xmlError) {
        guard diagnostics.count < Self.maximumKept else { return }
        var message = error.message.map { String(cString: $0) } ?? "unknown XML error"
        while let last = message.unicodeScalars.last, last == "\n" || last == " " || last == "\r" {
            message.unicodeScalars.removeLast()
        }
        let isDepthLimit = message.hasPrefix("Excessive depth in document")
        diagnostics.append(
            XMLDiagnostic(
                line: Int(error.line), column: Int(error.int2), message: message,
                isError: error.level.rawValue >= XML_ERR_ERROR.rawValue,
                isDepthLimit: isDepthLimit))
    }

    /// The context pointer handed to libxml2; valid while `self` lives.
    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
}

/// The C callback that forwards libxml2's structured errors to a collector.
let collectXMLError: xmlStructuredErrorFunc = { context, error in
    guard let context, let error else { return }
    Unmanaged<XMLDiagnosticCollector>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
}

/// Installs `collector` as this thread's structured error handler for the
/// duration of `body`, then restores the handler that was there. The few
/// messages libxml2 prints with neither a context nor a structure (such as
/// "xmlParseChunk: encoder error", after an error it reports structured)
/// are dropped meanwhile, where they went to standard error.
/// The corresponding C functions are `xmlSetStructuredErrorFunc` and `xmlSetGenericErrorFunc`.
func withXMLErrors<T>(collectedBy collector: XMLDiagnosticCollector, _ body: () -> T) -> T {
    initializeLibXML2()
    let previousHandler = __xmlStructuredError().pointee
    let previousContext = __xmlStructuredErrorContext().pointee
    let previousGenericHandler = ictkit_drop_generic_errors()
    xmlSetStructuredErrorFunc(collector.opaque, collectXMLError)
    defer {
        xmlSetStructuredErrorFunc(previousContext, previousHandler)
        ictkit_restore_generic_errors(previousGenericHandler)
    }
    return withExtendedLifetime(collector) { body() }
}

/// Makes DTD validity errors (a duplicate token in an `ATTLIST`, say) reach
/// the structured error handler with `sink` too: libxml2 passes them the
/// validity context's user data, by default the parser context itself,
/// which the handler would take for its sink. The validity context's own
/// handlers are removed, as they expect the parser context.
func routeValidityErrors(of context: xmlParserCtxtPtr, to sink: UnsafeMutableRawPointer?) {
    context.pointee.vctxt.userData = sink
    context.pointee.vctxt.error = nil
    context.pointee.vctxt.warning = nil
}
