import CLibXML2

// Every libxml2 call the property-list module makes goes through the
// LibXML2*.swift files, each behind one small internal function, so no C
// type reaches the public API and the rest of the module reads as Swift:
// this file (parse options, initialisation), LibXML2Diagnostics (error
// capture), LibXML2TextReader (xmlTextReader), LibXML2DTD (DTDs and their
// validation), LibXML2EventParser (SAX2 parse for reading) and
// LibXML2ValidationParser (SAX2 parse for DTD validation).

/// Parser options for the documents this module reads.
struct XMLParseOptions: OptionSet {
    let rawValue: Int32

    /// Never fetch anything over the network. The corresponding C constant is `XML_PARSE_NONET`.
    static let noNetwork = XMLParseOptions(rawValue: Int32(XML_PARSE_NONET.rawValue))
    /// Store small text nodes inline. The corresponding C constant is `XML_PARSE_COMPACT`.
    static let compact = XMLParseOptions(rawValue: Int32(XML_PARSE_COMPACT.rawValue))
    /// Ignore the encoding the XML declaration names (for input already
    /// transcoded). The corresponding C constant is `XML_PARSE_IGNORE_ENC`.
    static let ignoreDeclaredEncoding = XMLParseOptions(rawValue: Int32(XML_PARSE_IGNORE_ENC.rawValue))
    /// Keep line numbers above 65535. The corresponding C constant is `XML_PARSE_BIG_LINES`.
    static let bigLines = XMLParseOptions(rawValue: Int32(XML_PARSE_BIG_LINES.rawValue))

    /// Lift libxml2's fixed limits: elements nesting more than 256 deep, text
    /// nodes over 10 MB. The corresponding C constant is `XML_PARSE_HUGE`.
    static let huge = XMLParseOptions(rawValue: Int32(XML_PARSE_HUGE.rawValue))

    /// What untrusted property lists are read with: no network, no entity
    /// substitution, no DTD loading. libxml2's own depth limit (256) is
    /// lifted so that the readers' `PropertyListLimits.maximumDepth`, the
    /// same for every reader and writer, is the one that applies: a value
    /// one form holds can be written and read back in the others. Input
    /// size is bounded by `PropertyListLimits.maximumInputSize`; entities
    /// are never substituted, so no expansion limit is lifted.
    static let untrusted: XMLParseOptions = [.noNetwork, .compact, .bigLines, .huge]
}

/// libxml2 needs one process-wide initialisation before use from several threads.
private let libxml2Initialized: Void = xmlInitParser()

/// Makes sure libxml2 is initialised. The corresponding C function is `xmlInitParser`.
func initializeLibXML2() {
    _ = libxml2Initialized
}
