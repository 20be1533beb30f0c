#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PropertyList

/// An input named on the command line: a file, mapped, or `-` for standard input.
struct InputFile {
    /// The name to print in messages: the path, or `<stdin>`.
    let displayName: String
    private let mapped: MappedFile?
    private let buffer: [UInt8]

    /// Opens `path`, or reads all of standard input when it is `-`.
    init(path: String) throws(PropertyListError) {
        if path == "-" {
            displayName = "<stdin>"
            mapped = nil
            buffer = try Self.readAll(descriptor: STDIN_FILENO)
        } else {
            displayName = path
            mapped = try MappedFile(path: path)
            buffer = []
        }
    }

    /// Calls `body` with the input's bytes.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> R) throws(PropertyListError) -> R {
        if let mapped { return try body(mapped.bytes) }
        let result: Result<R, PropertyListError> = buffer.withUnsafeBytes { bytes in
            Result { () throws(PropertyListError) in try body(bytes) }
        }
        return try result.get()
    }

    private static func readAll(descriptor: Int32) throws(PropertyListError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return bytes }
            if count < 0 {
                if errno == EINTR { continue }
                throw PropertyListError(.io, at: .none, "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}
