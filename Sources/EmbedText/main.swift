#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The EmbedTypeDeclarations build plugin's tool:
//   EmbedText INPUT OUTPUT CONSTANT NAME
// writes OUTPUT, a Swift file declaring `TypeDeclarationSet.CONSTANT`, the
// text of INPUT (shown to people as NAME) as a raw string literal.

/// The bytes of the file at `path`; exits with status 1 when it cannot be read.
func contents(of path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fail("cannot read \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        bytes += buffer[..<count]
        if count < buffer.count { break }
    }
    return bytes
}

func fail(_ message: String) -> Never {
    let line = Array("EmbedText: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 5 else { fail("usage: EmbedText INPUT OUTPUT CONSTANT NAME") }
let (input, output, constant, name) = (arguments[1], arguments[2], arguments[3], arguments[4])
guard let text = String(validating: contents(of: input), as: UTF8.self) else { fail("\(input) is not UTF-8") }
guard text.hasSuffix("\n") else { fail("\(input) does not end with a newline") }
guard !text.contains("\"\"\"#") else { fail("\(input) holds \"\"\"#, which would end the string literal") }
let swift = """
    extension TypeDeclarationSet {
        /// The text of `\(name)`, built in at build time by the
        /// EmbedTypeDeclarations plugin.
        public static let \(constant): String = #\"\"\"
    \(text)\"\"\"#
    }

    """
guard let file = fopen(output, "wb") else { fail("cannot write \(output)") }
let written = fputs(swift, file)
guard fclose(file) == 0, written >= 0 else { fail("cannot write \(output)") }
