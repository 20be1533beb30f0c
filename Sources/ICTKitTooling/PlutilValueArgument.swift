import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The typed values `-insert` and `-replace` take (`-bool YES`, `-integer 7`,
/// `-array`, …), read as `plutil` reads them.
package enum PlutilValueArgument {
    /// Reads the value of `type` (`-string`, …), taking its text from the
    /// front of `arguments` (`-array` and `-dictionary` take none).
    ///
    /// - Throws: `CommandFailure` with `plutil`'s words.
    package static func value(type: String, arguments: inout ArraySlice<String>) throws(CommandFailure) -> PropertyListValue {
        switch type {
        case "-dictionary": return .dictionary([:])
        case "-array": return .array([])
        case "-bool", "-integer", "-float", "-string", "-date", "-data", "-xml", "-json": break
        default: throw CommandFailure("Unknown insert or replace type \(type)")
        }
        guard let text = arguments.popFirst() else {
            throw CommandFailure("'Insert' and 'Replace' require a key path, a type, and a value2.")
        }
        return try parse(type: type, text)
    }

    /// The value `text` gives for `type` (`-bool` … `-json`, as `plutil` names them).
    ///
    /// - Throws: `CommandFailure` for data that is not base64, a date, XML or JSON that cannot be read.
    package static func parse(type: String, _ text: String) throws(CommandFailure) -> PropertyListValue {
        switch type {
        case "-bool": return .bool(["true", "yes"].contains(text.lowercased()))
        case "-integer": return .integer(PropertyListInteger(leadingInteger(text)))
        case "-float": return .real(leadingReal(text))
        case "-string":
            if let problem = ArgumentText.notUTF8Problem(text, option: "-string") { throw CommandFailure(problem) }
            return .string(text)
        case "-date":
            guard let date = PropertyListDateFormat.parse(text) else { throw CommandFailure("Invalid date in argument: \(text)") }
            return .date(date)
        case "-data":
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw CommandFailure("Invalid base64 data in argument")
            }
            return .data(data)
        case "-xml":
            do {
                return try PropertyListReader().read(Data(text.utf8)).value
            } catch {
                throw CommandFailure("Unable to parse xml property list: \(error.description)")
            }
        case "-json":
            do {
                return try JSONPropertyListReader(interpretsTags: false).read(Data(text.utf8))
            } catch {
                throw CommandFailure("Unable to parse JSON: \(error.description)")
            }
        default:
            preconditionFailure("not a value type: \(type)")
        }
    }

    /// `NSString.integerValue`: leading white space, a sign and digits; 0
    /// when there are none; clamped to the 64-bit range.
    package static func leadingInteger(_ text: String) -> Int64 {
        var scalars = Substring(text).drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        var negative = false
        if let sign = scalars.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            scalars = scalars.dropFirst()
        }
        var magnitude: UInt64 = 0
        var overflow = false
        for character in scalars {
            guard let digit = character.wholeNumberValue, character.isASCII else { break }
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(UInt64(digit))
            if o1 || o2 { overflow = true; break }
            magnitude = plus
        }
        if negative {
            return overflow || magnitude > UInt64(Int64.max) + 1 ? Int64.min : Int64(truncatingIfNeeded: 0 &- magnitude)
        }
        return overflow || magnitude > UInt64(Int64.max) ? Int64.max : Int64(magnitude)
    }

    /// `NSString.doubleValue`: the longest leading decimal number, 0 when there is none.
    package static func leadingReal(_ text: String) -> Double {
        let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        var end = trimmed.startIndex
        var best: Double = 0
        while end < trimmed.endIndex {
            end = trimmed.index(after: end)
            let prefix = trimmed[..<end]
            if prefix.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }), let value = Double(prefix) {
                best = value
            } else if !prefix.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) {
                break
            }
        }
        return best
    }
}

extension Plutil {
    /// `-help`: our own description of `plutil`'s options (the same options
    /// and rules as Apple's text, in our words).
    package static func helpText(name: String) -> String {
        """
        \(name): [command_option] [other_options] file...
        '-' as a file reads standard input.
        Commands (without one, -lint):
         -help                         print this text
         -lint                         check that each file is a property list (binary, XML or OpenStep)
         -convert fmt                  write each file in fmt: xml1 binary1 json swift objc
                                       (objc -header also writes a .h file)
         -insert keypath -type value   add a value at keypath, then write the file back in its own form
                                       keypath: keys joined with '.', '\\.' a dot inside a key; a number
                                       applied to an array is an index (last in the path: where to insert)
                                       -bool YES|true (anything else is NO)   -integer N   -float X
                                       -string S   -date 2004-10-26T10:33:33Z   -data BASE64
                                       -xml PLIST   -json JSON   -array   -dictionary (no value)
                                       -append adds to the end of the array at keypath
         -replace keypath -type value  as -insert, replacing what is there
         -remove keypath               remove the value at keypath
         -extract keypath fmt          write the value at keypath in fmt: xml1 binary1 json raw
                                       (-expect type fails unless the value is of that type)
                                       raw: bool true/false, numbers, strings, dates (ISO 8601, UTC),
                                       data (base64), a dictionary's keys one a line, an array's count
         -type keypath                 print the type of the value at keypath:
                                       bool integer float string date data dictionary array
         -create fmt                   write an empty dictionary in fmt ('-' is standard output)
         -p                            print each file for people (not a stable format)
        Options of -convert, -insert, -replace, -remove and -extract:
         -s                            say nothing on success
         -o path                       write here instead ('-' is standard output)
         -e extension                  write beside the file with this extension
         -r                            indent JSON output
         -n                            no newline after raw or type output
         --                            every later argument is a file

        """
    }
}
