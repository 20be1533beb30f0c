#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
/// File names byte for byte. A Linux file name is any bytes but `/` and NUL,
/// not always UTF-8; Swift's `CommandLine.arguments` would replace the bytes
/// that are not UTF-8 with U+FFFD, so such a file could not be opened and
/// `-o` would write another name. Instead each byte that is not part of valid
/// UTF-8 is carried in a `String` as the private-use scalar U+10FF00 + byte
/// (U+10FF80…U+10FFFF), and turned back into that byte wherever the name
/// reaches the file system or standard error. JSON output, which must be
/// UTF-8, shows those scalars as they are.
package enum RawFileName {
    private static let base: UInt32 = 0x10FF00

    /// The command-line arguments after the program's name, decoded so.
    package static func arguments() -> [String] {
        (1..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            var length = 0
            while argument[length] != 0 { length += 1 }
            return decoding(UnsafeRawBufferPointer(start: argument, count: length))
        }
    }

    /// The last path component of the name the program was run as (`plutil` through a link so named).
    package static func programName() -> String {
        guard CommandLine.argc > 0, let name = CommandLine.unsafeArgv[0] else { return "" }
        let full = decoding(UnsafeRawBufferPointer(start: name, count: Int(strlen(name))))
        return full.split(separator: "/").last.map(String.init) ?? full
    }

    /// `bytes` as a string: valid UTF-8 as it is, every other byte as U+10FF00 + byte.
    package static func decoding<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var position = bytes.startIndex
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                position = bytes.index(position, offsetBy: encoded.count)
            case .error(let length):
                for byte in bytes[position...].prefix(length) {
                    scalars.append(Unicode.Scalar(base + UInt32(byte))!)  // U+10FF00…U+10FFFF are valid scalars.
                }
                position = bytes.index(position, offsetBy: length)
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    /// The bytes `text` stands for on the file system: UTF-8, with each
    /// U+10FF80…U+10FFFF turned back into the byte it carries.
    package static func bytes(_ text: String) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar.value >= base + 0x80, scalar.value <= base + 0xFF {
                result.append(UInt8(truncatingIfNeeded: scalar.value - base))
            } else {
                result.append(contentsOf: String(scalar).utf8)
            }
        }
        return result
    }

    /// `name` for people: each byte that is not UTF-8 as `\xff`, each control
    /// character as `\u{1b}`, the rest as it is.
    package static func escaped(_ name: String) -> String {
        var result = ""
        for scalar in name.unicodeScalars {
            if scalar.value >= base + 0x80, scalar.value <= base + 0xFF {
                let byte = String(scalar.value - base, radix: 16)
                result += "\\x" + byte
            } else if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Calls `body` with `path` as a C string of its file-system bytes.
    package static func withPath<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        // U+10FF80…U+10FFFF all begin with the byte F4 in UTF-8: without one, the UTF-8 is the bytes.
        if !path.utf8.contains(0xF4) { return try path.withCString(body) }
        let cString = bytes(path).map { CChar(bitPattern: $0) } + [0]
        return try cString.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }
}
