import Foundation
import OrderedCollections
import PropertyList

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Crashes with `message` when a checked property does not hold; libFuzzer
/// then saves the input as `crash-…`.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() {
        printError("ICTFuzz property failed: \(message())")
        abort()
    }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Limits small enough that no input can take more than a few hundred MB or
/// a few seconds, the libraries' own checks doing the refusing.
let fuzzLimits = PropertyListLimits(
    maximumDepth: 512, maximumObjectCount: 200_000, maximumInputSize: 4 << 20, maximumExpandedSize: 64 << 20)

/// Equal as values, with reals and dates compared so that NaN equals NaN
/// (a property list can hold NaN; `==` would call every round trip of it unequal).
func sameValue(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
    switch (a, b) {
    case (.real(let x), .real(let y)): return sameReal(x, y)
    case (.real32(let x), .real32(let y)): return sameReal(Double(x), Double(y))
    case (.date(let x), .date(let y)): return sameReal(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
    case (.dictionary(let x), .dictionary(let y)):
        return x.keys == y.keys && zip(x.values, y.values).allSatisfy { sameValue($0, $1) }
    default: return a == b
    }
}

func sameReal(_ x: Double, _ y: Double) -> Bool { x == y || (x.isNaN && y.isNaN) }

/// A short description for a failure message, cut to 300 characters.
func brief(_ value: Any) -> String {
    let text = String(describing: value)
    return text.count > 300 ? String(text.prefix(300)) + "…" : text
}

/// This process's scratch folder (`$TMPDIR/ictfuzz-PID`), made once and
/// removed at exit.
let scratchFolder: String = {
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    let path = "\(base)/ictfuzz-\(getpid())"
    try? FileManager.default.removeItem(atPath: path)
    precondition(mkdir(path, 0o700) == 0, "cannot make \(path)")
    atexit { try? FileManager.default.removeItem(atPath: "\(ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")/ictfuzz-\(getpid())") }
    return path
}()

/// Writes `bytes` to `path`, replacing it.
func writeFile(_ path: String, _ bytes: [UInt8]) {
    do {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    } catch {
        fatalError("cannot write \(path): \(error)")
    }
}

/// The bytes of the file at `path`, or nil if it cannot be read: read(2) in a loop, not
/// `FileManager.contents(atPath:)`, which leaks its 4 KB buffer for an empty file
/// (swift-corelibs-foundation's readBytesFromFile; LeakSanitizer found it under the store target).
func readFile(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 { return nil }
        if count == 0 { return bytes }
        bytes += buffer[0..<count]
    }
}

/// Removes `path` and everything under it, if there.
func removeItem(_ path: String) {
    if FileManager.default.fileExists(atPath: path) || isSymbolicLink(path) {
        do { try FileManager.default.removeItem(atPath: path) } catch { fatalError("cannot remove \(path): \(error)") }
    }
}

func isSymbolicLink(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
}
