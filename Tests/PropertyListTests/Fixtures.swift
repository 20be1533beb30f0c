import Foundation
import PropertyList
import TestSupport

/// Test fixtures shared by the property-list tests: CPython's `plistlib` as an
/// independent oracle (run through the scripts in `Fixtures/`). The interop
/// corpus and the repository root are TestSupport's.
enum Fixtures {
    /// The folder of the Python helper scripts.
    static let scriptsFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures", isDirectory: true)

    /// Bytes written as hex digits, spaces ignored: `"00000004 10410820 82"`.
    static func bytes(hex: String) -> Data {
        let digits = hex.filter { !$0.isWhitespace }.map { UInt8(String($0), radix: 16)! }
        precondition(digits.count.isMultiple(of: 2), "odd number of hex digits: \(hex)")
        return Data(stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] })
    }

    /// The value CPython's `plistlib.load` decodes from `file`.
    ///
    /// plistlib widens 32-bit reals to 64-bit ones and has microsecond dates,
    /// so compare with `PropertyListComparison.plistlib`.
    /// - Throws: `PythonError` when Python fails or plistlib rejects the file.
    static func pythonPlistlib(_ file: URL) throws -> PropertyListValue {
        try pythonPlistlib([file])[0].get()
    }

    /// What CPython's `plistlib.load` makes of each file, in one Python run.
    static func pythonPlistlib(_ files: [URL]) throws -> [Result<PropertyListValue, PythonError>] {
        let list = FileManager.default.temporaryDirectory
            .appendingPathComponent("plistlib-files-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: list) }
        try Data(files.map { $0.path + "\n" }.joined().utf8).write(to: list)
        let output = try runPython("plist_to_json.py", ["--list", list.path])
        guard let entries = try JSONSerialization.jsonObject(with: output) as? [[String: Any]],
            entries.count == files.count
        else { throw PythonError(message: "plist_to_json.py printed no list of \(files.count) entries") }
        return zip(files, entries).map { file, entry in
            if let tree = entry["value"] {
                return Result { () throws(PythonError) in try TypedJSON.value(from: tree) }
            }
            let reason = entry["error"] as? String ?? "no value and no error"
            return .failure(PythonError(message: "plistlib cannot read \(file.path): \(reason)"))
        }
    }

    /// Runs a script of `Fixtures/` with `python3` and returns its standard output.
    /// - Throws: `PythonError` with the script's standard error when it fails.
    static func runPython(_ script: String, _ arguments: [String]) throws -> Data {
        do {
            return try PythonScript.run(arguments: [scriptsFolder.appendingPathComponent(script).path] + arguments)
        } catch let failure as PythonScript.Failure {
            throw PythonError(message: failure.message)
        }
    }

    /// The instant an ISO 8601 UTC timestamp names: `2004-10-26T10:33:33Z`,
    /// optionally with a fraction of a second (`…:35.101460Z`). Computed here,
    /// not with the code under test, so expectations can be written as text.
    static func date(_ text: String) -> Date {
        let parts = text.split(separator: "T")
        precondition(parts.count == 2 && text.hasSuffix("Z"), "not an ISO 8601 UTC timestamp: \(text)")
        let day = parts[0].split(separator: "-").compactMap { Int($0) }
        let time = parts[1].dropLast().split(separator: ":")
        precondition(day.count == 3 && time.count == 3, "not an ISO 8601 UTC timestamp: \(text)")
        guard let hour = Int(time[0]), let minute = Int(time[1]), let second = Double(time[2]) else {
            preconditionFailure("not an ISO 8601 UTC timestamp: \(text)")
        }
        let days = daysSince1970(year: day[0], month: day[1], day: day[2])
        let wholeSeconds = Double(days * 86_400 + hour * 3_600 + minute * 60)
        return Date(timeIntervalSince1970: wholeSeconds + second)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A failure running the Python oracle.
struct PythonError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The typed JSON trees the Python scripts read and print (see
/// `Fixtures/plist_to_json.py`): `{"t": "int", "v": "123"}`,
/// `{"t": "real", "v": "0x1.8p+1"}`, dictionaries as `[key, value]` pairs.
enum TypedJSON {
    /// The value a typed JSON tree (as `JSONSerialization` parsed it) stands for.
    static func value(from tree: Any) throws(PythonError) -> PropertyListValue {
        guard let node = tree as? [String: Any], let kind = node["t"] as? String, let payload = node["v"] else {
            throw PythonError(message: "not a typed JSON node: \(tree)")
        }
        func text() throws(PythonError) -> String {
            guard let text = payload as? String else { throw PythonError(message: "\(kind) payload is not text") }
            return text
        }
        switch kind {
        case "str":
            return .string(try text())
        case "int":
            let digits = try text()
            if let signed = Int64(digits) { return .integer(PropertyListInteger(signed)) }
            if let unsigned = UInt64(digits) { return .integer(PropertyListInteger(unsigned)) }
            throw PythonError(message: "integer \(digits) is outside Int64.min...UInt64.max")
        case "real":
            let digits = try text()
            guard let real = Double(digits) else { throw PythonError(message: "bad real \(digits)") }
            return .real(real)
        case "bool":
            guard let bool = payload as? Bool else { throw PythonError(message: "bad bool \(payload)") }
            return .bool(bool)
        case "date":
            return .date(Fixtures.date(try text()))
        case "data":
            guard let data = Data(base64Encoded: try text()) else { throw PythonError(message: "bad base64") }
            return .data(data)
        case "uid":
            guard let uid = UInt64(try text()) else { throw PythonError(message: "bad UID \(payload)") }
            return .uid(uid)
        case "array":
            guard let items = payload as? [Any] else { throw PythonError(message: "array payload is not a list") }
            var values: [PropertyListValue] = []
            for item in items { values.append(try value(from: item)) }
            return .array(values)
        case "dict":
            guard let pairs = payload as? [[Any]] else { throw PythonError(message: "dict payload is not pairs") }
            var entries: [(String, PropertyListValue)] = []
            for pair in pairs {
                guard pair.count == 2, let key = pair[0] as? String else {
                    throw PythonError(message: "bad dict entry \(pair)")
                }
                entries.append((key, try value(from: pair[1])))
            }
            let dictionary = PropertyListValue.dictionary(.init(entries, uniquingKeysWith: { first, _ in first }))
            guard dictionary.dictionaryValue?.count == entries.count else {
                throw PythonError(message: "dict keys that differ in Python are equal as Swift strings")
            }
            return dictionary
        default:
            throw PythonError(message: "unknown typed JSON kind \(kind)")
        }
    }

    /// A value as a typed JSON tree, ready for `JSONSerialization`.
    static func tree(from value: PropertyListValue) -> [String: Any] {
        switch value {
        case .string(let string): ["t": "str", "v": string]
        case .integer(let integer): ["t": "int", "v": integer.description]
        case .real(let real): ["t": "real", "v": hexadecimal(real)]
        case .real32(let real): ["t": "real", "v": hexadecimal(Double(real))]
        case .bool(let bool): ["t": "bool", "v": bool]
        case .date(let date): ["t": "date", "v": isoText(date)]
        case .data(let data): ["t": "data", "v": data.base64EncodedString()]
        case .uid(let uid): ["t": "uid", "v": String(uid)]
        case .array(let items): ["t": "array", "v": items.map(tree(from:))]
        case .dictionary(let entries): ["t": "dict", "v": entries.map { [$0.key, tree(from: $0.value)] as [Any] }]
        }
    }

    /// Python's `float.hex` spelling, which `float.fromhex` reads back exactly.
    static func hexadecimal(_ real: Double) -> String {
        if real.isNaN { return "nan" }
        if real.isInfinite { return real < 0 ? "-inf" : "inf" }
        let sign = real.sign == .minus ? "-" : ""
        if real.isZero { return sign + "0x0.0p+0" }
        let hexDigits = String(real.significandBitPattern, radix: 16)
        let fraction = String(repeating: "0", count: 13 - hexDigits.count) + hexDigits
        if real.isSubnormal { return "\(sign)0x0.\(fraction)p-1022" }
        let exponent = Int(real.exponentBitPattern) - 1023
        return "\(sign)0x1.\(fraction)p\(exponent < 0 ? "-" : "+")\(abs(exponent))"
    }

    /// `YYYY-MM-DDTHH:MM:SS.ffffffZ` for a date with whole microseconds in years 1...9999.
    static func isoText(_ date: Date) -> String {
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (days, microsecondOfDay) = floorDivision(microseconds, 86_400_000_000)
        // Hinnant's civil_from_days.
        let z = Int(days) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let second = microsecondOfDay / 1_000_000
        func pad(_ number: some BinaryInteger, _ width: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(second / 3_600, 2)):"
            + "\(pad(second / 60 % 60, 2)):\(pad(second % 60, 2)).\(pad(microsecondOfDay % 1_000_000, 6))Z"
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}

/// Structural comparison of property-list values for the interop tests,
/// stricter than `==` where it matters (strings by Unicode scalars, reals by
/// bits so -0.0 differs from 0.0) and looser where a format cannot do better
/// (dates within a tolerance, key order when no one stated it).
struct PropertyListComparison {
    /// Whether dictionaries must list their keys in the same order.
    var keyOrderMatters = true
    /// When false, a 32-bit real matches the 64-bit real of the same value
    /// (plistlib reads both widths as Python floats).
    var realWidthMatters = true
    /// Largest difference, in seconds, between dates taken as the same instant.
    /// One microsecond: plistlib and the MANIFEST give dates to the microsecond.
    var dateTolerance: TimeInterval = 0.000_001

    /// For a full value the MANIFEST states: key order not stated, widths exact.
    static let manifest = PropertyListComparison(keyOrderMatters: false)
    /// Against plistlib's reading of the same file: its dicts keep the file's
    /// order, but it widens 32-bit reals.
    static let plistlib = PropertyListComparison(realWidthMatters: false)
    /// For values that went through a writer and a reader: everything exact.
    static let exact = PropertyListComparison(dateTolerance: 0)

    /// The first place where `actual` differs from `expected`, described for
    /// people, or nil when they match.
    func firstDifference(_ actual: PropertyListValue, _ expected: PropertyListValue, at path: String = "root")
        -> String?
    {
        func mismatch() -> String {
            "at \(path): expected \(Self.summary(expected)), found \(Self.summary(actual))"
        }
        switch (actual, expected) {
        case (.string(let a), .string(let e)):
            return Array(a.unicodeScalars) == Array(e.unicodeScalars) ? nil : mismatch()
        case (.integer(let a), .integer(let e)):
            return a == e ? nil : mismatch()
        case (.real(let a), .real(let e)):
            return Self.sameReal(a, e) ? nil : mismatch()
        case (.real32(let a), .real32(let e)):
            return a.bitPattern == e.bitPattern || (a.isNaN && e.isNaN) ? nil : mismatch()
        case (.real32(let a), .real(let e)) where !realWidthMatters:
            return Self.sameReal(Double(a), e) ? nil : mismatch()
        case (.real(let a), .real32(let e)) where !realWidthMatters:
            return Self.sameReal(a, Double(e)) ? nil : mismatch()
        case (.bool(let a), .bool(let e)):
            return a == e ? nil : mismatch()
        case (.date(let a), .date(let e)):
            let distance = abs(a.timeIntervalSinceReferenceDate - e.timeIntervalSinceReferenceDate)
            return distance <= dateTolerance ? nil : mismatch() + " (\(distance) s apart)"
        case (.data(let a), .data(let e)):
            return a == e ? nil : mismatch()
        case (.uid(let a), .uid(let e)):
            return a == e ? nil : mismatch()
        case (.array(let a), .array(let e)):
            guard a.count == e.count else { return mismatch() }
            for index in a.indices {
                if let difference = firstDifference(a[index], e[index], at: "\(path)[\(index)]") {
                    return difference
                }
            }
            return nil
        case (.dictionary(let a), .dictionary(let e)):
            let actualKeys = a.keys.map { Array($0.unicodeScalars) }
            let expectedKeys = e.keys.map { Array($0.unicodeScalars) }
            if keyOrderMatters ? actualKeys != expectedKeys : Set(actualKeys) != Set(expectedKeys) {
                return "at \(path): expected keys \(Array(e.keys)), found keys \(Array(a.keys))"
            }
            for (key, expectedValue) in e {
                guard let actualValue = a[key] else { return mismatch() }
                if let difference = firstDifference(actualValue, expectedValue, at: "\(path).\(key)") {
                    return difference
                }
            }
            return nil
        default:
            return mismatch()
        }
    }

    private static func sameReal(_ a: Double, _ b: Double) -> Bool {
        a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN)
    }

    /// A short description of a value for failure messages.
    static func summary(_ value: PropertyListValue) -> String {
        let text: String
        switch value {
        case .string(let string): text = "string \(string.debugDescription)"
        case .integer(let integer): text = "integer \(integer)"
        case .real(let real): text = "real \(real)"
        case .real32(let real): text = "real (32-bit) \(real)"
        case .bool(let bool): text = "boolean \(bool)"
        case .date(let date): text = "date \(TypedJSON.isoText(date))"
        case .data(let data): text = "data of \(data.count) bytes \(data.prefix(16).map { String(format: "%02x", $0) }.joined())"
        case .uid(let uid): text = "UID(\(uid))"
        case .array(let items): text = "array of \(items.count)"
        case .dictionary(let entries): text = "dictionary of \(entries.count) \(Array(entries.keys.prefix(8)))"
        }
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
