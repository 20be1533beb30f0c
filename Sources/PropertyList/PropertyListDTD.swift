#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension XMLPropertyListValidator {
    /// The text of `Schemas/PropertyList-1.0.dtd`, built in so a program
    /// needs no file beside it to validate (a test keeps the two the same).
    public static let propertyListDTDText: String = #"""
        <!--
          Document type of XML property lists, version 1.0, written for ICTKit.

          It describes the same documents as Apple's public DTD of the same name
          ("-//Apple//DTD PLIST 1.0//EN"): a <plist> element holding exactly one
          value, arrays of values, dictionaries of key/value pairs, and text-only
          scalar elements. The value choice is spelt out in each content model
          rather than through a parameter entity, so the file needs no entity
          processing.

          What a DTD cannot say, and readers check themselves:
            <integer>  an optionally signed decimal integer
            <real>     a decimal floating-point number
            <date>     ISO 8601 in UTC: YYYY-MM-DDTHH:MM:SSZ
            <data>     base64, whitespace allowed anywhere
        -->

        <!-- The root: one value. The version defaults to 1.0. -->
        <!ELEMENT plist (array | data | date | dict | real | integer | string | true | false)>
        <!ATTLIST plist version CDATA "1.0">

        <!-- Collections. A dictionary alternates keys and values, key first. -->
        <!ELEMENT array (array | data | date | dict | real | integer | string | true | false)*>
        <!ELEMENT dict (key, (array | data | date | dict | real | integer | string | true | false))*>
        <!ELEMENT key (#PCDATA)>

        <!-- Scalars: text content only. -->
        <!ELEMENT string (#PCDATA)>
        <!ELEMENT data (#PCDATA)>
        <!ELEMENT date (#PCDATA)>
        <!ELEMENT real (#PCDATA)>
        <!ELEMENT integer (#PCDATA)>

        <!-- Booleans: always empty. -->
        <!ELEMENT true EMPTY>
        <!ELEMENT false EMPTY>
        """#

    /// A validator for XML property lists against the built-in property-list DTD.
    ///
    /// - Throws: `PropertyListError` only if the built-in DTD could not be
    ///   parsed, which a test rules out.
    public static func propertyListDTD() throws(PropertyListError) -> XMLPropertyListValidator {
        try XMLPropertyListValidator(dtd: Data((propertyListDTDText + "\n").utf8))
    }
}
