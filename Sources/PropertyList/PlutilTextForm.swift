import OrderedCollections
import SystemPackage
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The text forms Apple's `plutil` writes, each laid out byte for byte as
/// `plutil` lays it out: its JSON (`-convert json`), the listing of `-p`,
/// raw values (`-extract … raw`), and Swift and Objective-C literals
/// (`-convert swift`, `-convert objc`).
///
/// These are `plutil`'s presentations, not lossless encodings: the JSON has
/// no dates, data or non-finite reals (``isValidJSON(_:)`` says whether a value
/// has none), and the listing and literals are for people and compilers. For
/// JSON that reads back to an equal value, use ``JSONPropertyListWriter``.
///
/// Dictionaries' keys are written in `plutil`'s order,
/// ``areKeysInIncreasingOrder(_:_:)``, whatever their order in the value.
public enum PlutilTextForm {
    // MARK: Key order

    /// Whether key `a` comes before key `b` in `plutil`'s order, the order of
    /// dictionaries' keys in every form here (`-p`, `-convert json`,
    /// `-extract … raw`, `-convert swift`, `-convert objc`).
    ///
    /// Case-insensitive, runs of digits compared as numbers (`a9` before
    /// `a10`), then lowercase before uppercase where keys differ only in case
    /// (`b` before `B`).
    ///
    /// - Parameters:
    ///   - a: A key.
    ///   - b: Another key.
    /// - Returns: `true` when `a` sorts before `b`; a strict order, as
    ///   `sorted(by:)` takes.
    public static func areKeysInIncreasingOrder(_ a: String, _ b: String) -> Bool {
        let left = Array(a.unicodeScalars), right = Array(b.unicodeScalars)
        var i = 0, j = 0
        while i < left.count, j < right.count {
            if isDigit(left[i]), isDigit(right[j]) {
                let startI = i, startJ = j
                while i < left.count, isDigit(left[i]) { i += 1 }
                while j < right.count, isDigit(right[j]) { j += 1 }
                let x = String(String.UnicodeScalarView(left[startI..<i])), y = String(String.UnicodeScalarView(right[startJ..<j]))
                let trimmedX = x.drop { $0 == "0" }, trimmedY = y.drop { $0 == "0" }
                if trimmedX.count != trimmedY.count { return trimmedX.count < trimmedY.count }
                if trimmedX != trimmedY { return trimmedX < trimmedY }
                continue
            }
            let x = folded(left[i]), y = folded(right[j])
            if x != y { return x < y }
            i += 1; j += 1
        }
        if (left.count - i) != (right.count - j) { return (left.count - i) < (right.count - j) }
        // Equal but for case: lowercase first.
        for (x, y) in zip(left, right) where x != y {
            return x.properties.isLowercase
        }
        return false
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    private static func folded(_ scalar: Unicode.Scalar) -> String { String(scalar).lowercased() }

    /// `value` with every dictionary's keys, at every depth, in the order
    /// `order` gives: as `plutil` writes XML and binary property lists
    /// (`-convert xml1`, `-convert binary1`), whose keys it sorts with `<`.
    ///
    /// - Parameters:
    ///   - value: The value to reorder.
    ///   - order: A strict order on keys, such as `<` or
    ///     ``areKeysInIncreasingOrder(_:_:)``.
    /// - Returns: An equal value but for the order of dictionaries' keys.
    public static func sortingKeys(_ value: PropertyListValue, by order: (String, String) -> Bool) -> PropertyListValue {
        switch value {
        case .array(let elements): return .array(elements.map { sortingKeys($0, by: order) })
        case .dictionary(let dictionary):
            var sorted = OrderedDictionary<String, PropertyListValue>()
            for key in dictionary.keys.sorted(by: order) { sorted[key] = sortingKeys(dictionary[key]!, by: order) }
            return .dictionary(sorted)
        default: return value
        }
    }

    // MARK: JSON

    /// Whether `plutil` can write `value` as JSON (`-convert json`): an array
    /// or dictionary holding no date, data, UID or non-finite real.
    ///
    /// `plutil` refuses any other value with "Invalid object in plist for
    /// JSON format"; ``json(_:readable:)`` writes only values for which this
    /// is `true`.
    ///
    /// - Parameter value: The value to check.
    /// - Returns: `true` when ``json(_:readable:)`` can write `value`.
    public static func isValidJSON(_ value: PropertyListValue) -> Bool {
        func valid(_ value: PropertyListValue) -> Bool {
            switch value {
            case .date, .data, .uid: false
            case .real(let real): real.isFinite
            case .real32(let real): real.isFinite
            case .array(let elements): elements.allSatisfy(valid)
            case .dictionary(let dictionary): dictionary.values.allSatisfy(valid)
            default: true
            }
        }
        switch value {
        case .array, .dictionary: return valid(value)
        default: return false
        }
    }

    /// JSON laid out as `plutil -convert json` lays it out: compact, or with
    /// `-r` indented by two spaces with `" : "` after keys; `/` escaped; reals
    /// without a trailing `.0`; keys in ``areKeysInIncreasingOrder(_:_:)``
    /// (the order of `-r`: compact, Apple's Linux build writes them in hash
    /// order, which differs from run to run).
    ///
    /// - Parameters:
    ///   - value: A value for which ``isValidJSON(_:)`` is `true` (dates and
    ///     data in any other are left out).
    ///   - readable: Whether to indent, as `plutil`'s `-r` does.
    /// - Returns: The JSON text, without a final newline.
    public static func json(_ value: PropertyListValue, readable: Bool = false) -> String {
        var output = ""
        appendJSON(value, readable: readable, indent: 0, to: &output)
        return output
    }

    private static func appendJSON(_ value: PropertyListValue, readable: Bool, indent: Int, to output: inout String) {
        let pad = { (level: Int) in String(repeating: " ", count: level) }
        switch value {
        case .string(let string): appendJSONString(string, to: &output)
        case .bool(let bool): output += bool ? "true" : "false"
        case .integer(let integer): output += integer.description
        case .uid(let uid): output += String(uid)
        case .real(let real): output += trimmedReal(real.description)
        case .real32(let real): output += trimmedReal(real.description)
        case .date, .data: break  // Refused by isValidJSON.
        case .array(let elements):
            output += "["
            if readable { output += "\n" }
            for (index, element) in elements.enumerated() {
                if index > 0 { output += readable ? ",\n" : "," }
                if readable { output += pad(indent + 2) }
                appendJSON(element, readable: readable, indent: indent + 2, to: &output)
            }
            if readable { output += "\n" + pad(indent) }
            output += "]"
        case .dictionary(let dictionary):
            output += "{"
            if readable {
                output += "\n"
                if !dictionary.isEmpty { output += pad(indent + 2) }
            }
            for (index, key) in dictionary.keys.sorted(by: areKeysInIncreasingOrder).enumerated() {
                if index > 0 { output += readable ? ",\n" + pad(indent + 2) : "," }
                appendJSONString(key, to: &output)
                output += readable ? " : " : ":"
                appendJSON(dictionary[key]!, readable: readable, indent: indent + 2, to: &output)
            }
            if readable { output += "\n" + pad(indent) }
            output += "}"
        }
    }

    private static func trimmedReal(_ text: String) -> String {
        text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    private static func appendJSONString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "/": output += "\\/"
            case "\u{8}": output += "\\b"
            case "\u{C}": output += "\\f"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{0}"..."\u{F}": output += "\\u000" + String(scalar.value, radix: 16)
            case "\u{10}"..."\u{1F}": output += "\\u00" + String(scalar.value, radix: 16)
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    // MARK: -p

    /// The listing `plutil -p` prints: dictionaries as `"key" => value` in
    /// ``areKeysInIncreasingOrder(_:_:)``, arrays as `index => value`, nested
    /// levels indented by two spaces, data as `{length = N, bytes = 0x…}` and
    /// dates as `2004-10-26 10:33:33 +0000`.
    ///
    /// - Parameter value: Any value.
    /// - Returns: The listing, ending in a newline.
    // The `ict` command's `TreePrinter` (`ict inspect`) prints a tree of the
    // same shape but differs on purpose: this one is plutil's, byte for
    // byte; that one keeps file order and escapes what a terminal must not
    // see, for people.
    public static func prettyPrinted(_ value: PropertyListValue) -> String {
        var output = ""
        appendPretty(value, indent: 2, to: &output)
        return output
    }

    private static func appendPretty(_ value: PropertyListValue, indent: Int, to output: inout String) {
        let pad = { (level: Int) in String(repeating: " ", count: max(0, level)) }
        switch value {
        case .dictionary(let dictionary):
            output += "{\n"
            for key in dictionary.keys.sorted(by: areKeysInIncreasingOrder) {
                output += pad(indent) + "\"\(key)\" => "
                appendPretty(dictionary[key]!, indent: indent + 2, to: &output)
            }
            output += pad(indent - 2) + "}\n"
        case .array(let elements):
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += pad(indent) + "\(index) => "
                appendPretty(element, indent: indent + 2, to: &output)
            }
            output += pad(indent - 2) + "]\n"
        case .string(let string): output += "\"\(string)\"\n"
        case .data(let data):
            let bytes = [UInt8](data)
            // plutil prints each byte's hex digits without padding, and of a long value the even bytes of the first 16.
            let shown =
                bytes.count > 24
                ? stride(from: 0, to: 16, by: 2).map { bytes[$0] } + [] : bytes
            var hex = shown.map { String($0, radix: 16) }.joined()
            if bytes.count > 24 { hex += "... " + bytes.suffix(8).map { String($0, radix: 16) }.joined() }
            output += "{length = \(bytes.count), bytes = 0x\(hex)}\n"
        case .date(let date): output += dateDescription(date) + "\n"
        case .bool(let bool): output += bool ? "true\n" : "false\n"
        case .integer(let integer): output += integer.description + "\n"
        case .uid(let uid): output += String(uid) + "\n"
        case .real(let real): output += real.description + "\n"
        case .real32(let real): output += real.description + "\n"
        }
    }

    /// `2004-10-26 10:33:33 +0000`, as `Date.description`.
    private static func dateDescription(_ date: Date) -> String {
        let text = PropertyListDateFormat.format(date)  // 2004-10-26T10:33:33Z
        return text.replacingScalars("T", with: " ").replacingScalars("Z", with: " +0000")
    }

    // MARK: raw

    /// A value as `plutil -extract KEYPATH raw` prints it: a string as it
    /// is, a number as C's `%lld` or `%f`, a boolean as `true` or `false`, a
    /// date in ISO 8601 (`2004-10-26T10:33:33Z`), data in base64, an array's
    /// count, and a dictionary's keys one a line in
    /// ``areKeysInIncreasingOrder(_:_:)``.
    ///
    /// - Parameter value: Any value.
    /// - Returns: The text, without a final newline (`plutil` adds one unless
    ///   given `-n`).
    public static func raw(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let string): string
        case .array(let elements): String(elements.count)
        case .dictionary(let dictionary): dictionary.keys.sorted(by: areKeysInIncreasingOrder).joined(separator: "\n")
        case .date(let date): PropertyListDateFormat.format(date)
        case .data(let data): data.base64EncodedString()
        default: number(value, objC: false)
        }
    }

    /// A number or boolean as literals write it: `true`/`YES`, `%lld`, `%f`.
    private static func number(_ value: PropertyListValue, objC: Bool) -> String {
        let text: String
        switch value {
        case .bool(let bool): text = objC ? (bool ? "YES" : "NO") : (bool ? "true" : "false")
        case .integer(let integer): text = integer.description
        case .uid(let uid): text = String(uid)
        case .real(let real): text = fixedPoint(real)
        case .real32(let real): text = fixedPoint(Double(real))
        default: text = ""
        }
        return objC ? "@" + text : text
    }

    /// C's `%f` of `value` (six decimals), as `String(format: "%f")` gives it.
    private static func fixedPoint(_ value: Double) -> String { CNumberFormat.fixedPoint(value) }

    // MARK: Swift and Objective-C literals

    /// The variable name of a literal: the file's stem, `-` and spaces as `_`, symbols and controls dropped.
    private static func variableName(_ path: String) -> String {
        var name = stem(of: path).replacingScalars("-", with: "_").replacingScalars(" ", with: "_")
        // CharacterSet.symbols (general categories Sm, Sc, Sk, So) and .controlCharacters (Cc, Cf).
        name.unicodeScalars.removeAll { scalar in
            switch scalar.properties.generalCategory {
            case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol, .control, .format: true
            default: false
            }
        }
        return name
    }

    /// The last component of a path, as `URL.lastPathComponent` gives it.
    private static func lastComponent(_ path: String) -> String {
        URL(fileURLWithPath: path).lastPathComponent
    }

    private static func stem(of path: String) -> String {
        let last = lastComponent(path)
        guard last != ".", last != "..", let dot = last.lastIndex(of: "."), dot != last.startIndex else { return last }
        return String(last[..<dot])
    }

    /// Escapes `"` and the backslash sequences `\b \s \w \. \| \* \) \(` with a backslash, one kind after another.
    private static func escaped(_ string: String) -> String {
        var result = string
        for sequence in ["\\b", "\\s", "\"", "\\w", "\\.", "\\|", "\\*", "\\)", "\\("] {
            result = result.replacingScalars(sequence, with: "\\" + sequence)
        }
        return result
    }

    private static func indentation(_ depth: Int) -> String { String(repeating: " ", count: depth * 4) }

    /// A Swift literal laid out as `plutil -convert swift` writes it:
    /// `/// Generated from FILE`, then `let NAME = …` with arrays and
    /// dictionaries indented by four spaces, data as `Data(bytes: […])` and
    /// dates as `Date(timeIntervalSinceReferenceDate: …)`.
    ///
    /// - Parameters:
    ///   - value: Any value.
    ///   - source: The path of the property list the value was read
    ///     from: its last component is the comment's `FILE`, and its name
    ///     without the extension (`-` and spaces as `_`, symbols and controls
    ///     dropped) the variable's `NAME`.
    /// - Returns: The Swift source, ending in a newline.
    package static func swiftLiteral(_ value: PropertyListValue, sourcePath source: String) -> String {
        var output = "/// Generated from \(lastComponent(source))\nlet \(variableName(source))"
        let elements: [PropertyListValue]? =
            switch value {
            case .array(let array): array
            case .dictionary(let dictionary): Array(dictionary.values)
            default: nil
            }
        if let elements, Set(elements.map(kind)).count > 1 {
            if case .array = value { output += " : [Any]" } else { output += " : [String : Any]" }
        }
        output += " = "
        appendLiteral(value, .swift, depth: 0, indent: true, to: &output)
        return output + "\n"
    }

    /// The kinds `plutil -type` tells apart: UIDs count as integers, 32-bit reals as reals.
    private static func kind(_ value: PropertyListValue) -> String {
        switch value {
        case .bool: "bool"
        case .integer, .uid: "integer"
        case .real, .real32: "float"
        case .string: "string"
        case .array: "array"
        case .dictionary: "dictionary"
        case .date: "date"
        case .data: "data"
        }
    }

    /// A literal syntax: what `plutil -convert swift` and `-convert objc` differ in.
    private enum LiteralLanguage {
        case swift, objC
    }

    /// Appends `value` as a literal of `language`, laid out as `plutil` lays it out.
    private static func appendLiteral(
        _ value: PropertyListValue, _ language: LiteralLanguage, depth: Int, indent: Bool, to output: inout String
    ) {
        let objC = language == .objC
        if indent { output += indentation(depth) }
        switch value {
        case .string(let string):
            output += objC ? "@\"" + escaped(string) + "\"" : "\"" + escaped(string).replacingScalars("\n", with: "\\n") + "\""
        case .array(let elements):
            output += objC ? "@[\n" : "[\n"
            for element in elements {
                appendLiteral(element, language, depth: depth + 1, indent: true, to: &output)
                output += ",\n"
            }
            output += indentation(depth) + "]"
        case .dictionary(let dictionary):
            output += objC ? "@{\n" : "[\n"
            for key in dictionary.keys.sorted(by: areKeysInIncreasingOrder) {
                output += indentation(depth + 1) + (objC ? "@" : "") + "\"\(key)\" : "
                appendLiteral(dictionary[key]!, language, depth: depth + 1, indent: false, to: &output)
                output += ",\n"
            }
            output += indentation(depth) + (objC ? "}" : "]")
        // Objective-C has no literal for these; `isValidObjC` keeps them out.
        case .data(let data) where !objC:
            output += "Data(bytes: [" + data.map { "0x" + ($0 < 0x10 ? "0" : "") + String($0, radix: 16, uppercase: true) + "," }.joined() + "])"
        case .date(let date) where !objC: output += "Date(timeIntervalSinceReferenceDate: \(date.timeIntervalSinceReferenceDate))"
        default: output += number(value, objC: objC)
        }
    }

    /// Whether `plutil -convert objc` can write `value`: Objective-C literals
    /// have no form for dates and data, so the value must hold neither.
    ///
    /// - Parameter value: The value to check.
    /// - Returns: `true` when ``objcLiteral(_:sourcePath:outputPath:)`` can
    ///   write `value`.
    public static func isValidObjC(_ value: PropertyListValue) -> Bool {
        switch value {
        case .date, .data: false
        case .array(let elements): elements.allSatisfy(isValidObjC)
        case .dictionary(let dictionary): dictionary.values.allSatisfy(isValidObjC)
        default: true
        }
    }

    private static func objcClass(_ value: PropertyListValue) -> String {
        switch value {
        case .string: "NSString"
        case .array: "NSArray"
        case .dictionary: "NSDictionary"
        default: "NSNumber"
        }
    }

    /// An Objective-C literal laid out as `plutil -convert objc` writes its
    /// `.m` file: `#import "NAME.h"` (left out on standard output),
    /// `/// Generated from FILE`, and `TYPE * const NAME = …;` with `@{…}`,
    /// `@[…]`, `@"…"` and `@`-numbers (`@YES`, `@NO`).
    ///
    /// - Parameters:
    ///   - value: A value for which ``isValidObjC(_:)`` is `true`.
    ///   - source: The path of the property list the value was read
    ///     from: its last component is the comment's `FILE`, and its name
    ///     without the extension the variable's `NAME`.
    ///   - target: The path the `.m` file goes to, whose name without the
    ///     extension the `#import` names; `-` for standard output.
    /// - Returns: The Objective-C source, ending in a newline.
    package static func objcLiteral(_ value: PropertyListValue, sourcePath source: String, outputPath target: String) -> String {
        var output = target == "-" ? "" : "#import \"\(stem(of: target)).h\"\n\n"
        output += "/// Generated from \(lastComponent(source))\n__attribute__((visibility(\"hidden\")))\n"
        output += "\(objcClass(value)) * const \(variableName(source)) = "
        appendLiteral(value, .objC, depth: 0, indent: true, to: &output)
        return output + ";\n"
    }

    /// The header `plutil -convert objc -header` writes beside the `.m`
    /// file: `#import <Foundation/Foundation.h>`, the comment, and
    /// `extern TYPE * const NAME;`.
    ///
    /// - Parameters:
    ///   - value: The value ``objcLiteral(_:sourcePath:outputPath:)`` writes.
    ///   - source: The path of the property list the value was read from,
    ///     as for ``objcLiteral(_:sourcePath:outputPath:)``.
    /// - Returns: The header's text, ending in a newline.
    package static func objcHeader(_ value: PropertyListValue, sourcePath source: String) -> String {
        "#import <Foundation/Foundation.h>\n\n/// Generated from \(lastComponent(source))\n__attribute__((visibility(\"hidden\")))\n"
            + "extern \(objcClass(value)) * const \(variableName(source));\n"
    }

}

extension String {
    /// Every occurrence of `target` replaced by `replacement`, compared by
    /// Unicode scalars as NSString's `replacingOccurrences(of:with:)` compares
    /// code units — not by Characters as `replacing(_:with:)` does, which
    /// would not find "\n" inside a "\r\n".
    fileprivate func replacingScalars(_ target: String, with replacement: String) -> String {
        let source = Array(unicodeScalars)
        let pattern = Array(target.unicodeScalars)
        guard !pattern.isEmpty else { return self }
        var result = String.UnicodeScalarView()
        var index = 0
        while index < source.count {
            if index + pattern.count <= source.count, source[index..<index + pattern.count].elementsEqual(pattern) {
                result.append(contentsOf: replacement.unicodeScalars)
                index += pattern.count
            } else {
                result.append(source[index])
                index += 1
            }
        }
        return String(result)
    }
}

// The `FilePath` forms: the path is text in the generated source, each byte
// that is not UTF-8 carried as `RawFileName` carries it (the `String` forms
// are `package`: the kit's own callers hold names as text).
extension PlutilTextForm {
    /// The Swift source `plutil -convert swift` writes for `value` read
    /// from `sourcePath`: `/// Generated from FILE` and `let NAME = …`.
    ///
    /// - Parameters:
    ///   - value: Any value.
    ///   - sourcePath: The path of the property list the value was read
    ///     from: its last component is the comment's `FILE`, and its name
    ///     without the extension (`-` and spaces as `_`, symbols and controls
    ///     dropped) the variable's `NAME`.
    /// - Returns: The Swift source, ending in a newline. Costs one pass over `value`.
    public static func swiftLiteral(_ value: PropertyListValue, sourcePath: FilePath) -> String {
        swiftLiteral(value, sourcePath: RawFileName.text(sourcePath))
    }

    /// The Objective-C source `plutil -convert objc` writes for `value`
    /// read from `sourcePath` into `outputPath` (`-` for standard output).
    ///
    /// - Parameters:
    ///   - value: A value for which ``isValidObjC(_:)`` is `true`.
    ///   - sourcePath: The path of the property list the value was read from.
    ///   - outputPath: The path the `.m` file goes to; `-` for standard output.
    /// - Returns: The Objective-C source, ending in a newline. Costs one pass over `value`.
    public static func objcLiteral(_ value: PropertyListValue, sourcePath: FilePath, outputPath: FilePath) -> String {
        objcLiteral(
            value, sourcePath: RawFileName.text(sourcePath),
            outputPath: RawFileName.text(outputPath))
    }

    /// The header `plutil -convert objc -header` writes beside the `.m`
    /// file for `value` read from `sourcePath`.
    ///
    /// - Parameters:
    ///   - value: The value ``objcLiteral(_:sourcePath:outputPath:)`` writes.
    ///   - sourcePath: The path of the property list the value was read from.
    /// - Returns: The header's text, ending in a newline. Costs one pass over `value`'s top.
    public static func objcHeader(_ value: PropertyListValue, sourcePath: FilePath) -> String {
        objcHeader(value, sourcePath: RawFileName.text(sourcePath))
    }
}
