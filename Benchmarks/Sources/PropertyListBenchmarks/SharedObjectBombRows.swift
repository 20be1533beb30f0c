import Foundation

// Rows x: shared-object bombs (issue 38, item 5) refused in milliseconds,
// with nothing written and memory under 100 MB, on every reader and writer path.

/// Small binary property lists whose shared objects expand to gigabytes,
/// given to every `ict` command that reads a property list: each must fail
/// (status 1) with the `maximumExpandedSize` limit named, print nothing on
/// standard output and leave its folder as it was. Row x1 times the refusal
/// of the issue's 1.2 KB file by `ict convert --format json`, against
/// Python's plistlib reading the same file (shared objects once, nothing
/// written) for scale; row x2 is the most memory any of those runs held,
/// against the target of 100 MB.
struct SharedObjectBombRows {
    let processRuns: Stopwatch
    let ict: String?
    let workDirectory: String

    static let timeName = "x1. 1.2 KB shared-object bomb (8.6 GB as JSON) refused, whole process"
    static let memoryName = "x2. peak memory, 5 shared-object bombs × 15 ict commands"
    static let timePeer = "python3 plistlib.load (reads it, shared objects once)"
    static let memoryPeer = "python3 plistlib.load of the 66 KB bomb"

    /// Writes the bombs into the folder given, as plistlib would not (it
    /// never shares a reference): 2-byte references, 4-byte offsets.
    static let generator = """
        import struct, sys
        def marker(kind, n):
            return bytes([kind << 4 | n]) if n < 15 else bytes([kind << 4 | 0xF, 0x12]) + struct.pack('>I', n)
        def ref(i): return struct.pack('>H', i)
        def plist(objects):
            body, offsets = bytearray(b'bplist00'), []
            for o in objects:
                offsets.append(len(body)); body += o
            table = len(body)
            for o in offsets: body += struct.pack('>I', o)
            return bytes(body + bytes([0] * 6 + [4, 2]) + struct.pack('>QQQ', len(objects), 0, table))
        def nested(fan_outs, leaf):
            return plist([marker(0xA, f) + ref(i + 1) * f for i, f in enumerate(fan_outs)] + [leaf])
        ascii = lambda n: marker(5, n) + b'a' * n
        keys = [marker(5, len('k%d' % k)) + b'k%d' % k for k in range(1000)]
        bombs = {
            # 64 x 64 x 1024 references to one 64 KB data object: 256 GiB.
            'data': nested([64, 64, 1024], marker(4, 65536) + b'a' * 65536),
            # 8^7 x 4 references to one 1 KB string: 8.6 GB.
            'string': nested([8] * 7 + [4], ascii(1024)),
            # A million references to a UTF-16 string of 4 KB.
            'utf16': nested([1000, 1000], marker(6, 2048) + b'\\x00\\xe9' * 2048),
            # 1000 keys whose value is one array of 1000 references to a 4 KB string.
            'dictionary': plist([marker(0xD, 1000) + b''.join(ref(1 + k) for k in range(1000)) + ref(1001) * 1000]
                                + keys + [marker(0xA, 1000) + ref(1002) * 1000, ascii(4096)]),
            # One dictionary {"k": [the 4 KB string x 1000]} reached from 1000 places.
            'shared-dictionary': plist([marker(0xA, 1000) + ref(1) * 1000, bytes([0xD1]) + ref(2) + ref(3),
                                        marker(5, 1) + b'k', marker(0xA, 1000) + ref(4) * 1000, ascii(4096)]),
        }
        for name, data in bombs.items():
            open('%s/%s.plist' % (sys.argv[1], name), 'wb').write(data)
        """

    /// Every command that reads a property list, `FILE` the bomb, `OUT` a new file beside it.
    static let commands: [[String]] = [
        ["validate", "FILE"],
        ["convert", "FILE", "--format", "binary1", "-o", "OUT"],
        ["convert", "FILE", "--format", "xml1", "-o", "OUT"],
        ["convert", "FILE", "--format", "json", "-o", "OUT"],
        ["convert", "FILE", "--format", "json"],
        ["inspect", "FILE"],
        ["get", "FILE", ""],
        ["set", "FILE", "x", "-string", "y"],
        ["insert", "FILE", "x", "-string", "y"],
        ["remove", "FILE", "x"],
        ["diff", "FILE", "FILE"],
        ["plutil", "-p", "FILE"],
        ["plutil", "-lint", "FILE"],
        ["plutil", "-convert", "json", "FILE", "-o", "OUT"],
        ["plutil", "-convert", "xml1", "FILE"],
    ]

    func run() -> [Row] {
        guard let ict else {
            return [
                .notMeasured(Self.timeName, peer: Self.timePeer, target: .atMost(milliseconds: 10), reason: "no `ict` given (--ict PATH)"),
                .notMeasured(Self.memoryName, peer: Self.memoryPeer, target: .memoryAtMostMegabytes(100), reason: "no `ict` given (--ict PATH)"),
            ]
        }
        do {
            try? FileManager.default.removeItem(atPath: workDirectory)
            try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: workDirectory) }
            _ = try runChildChecked(["python3", "-c", Self.generator, workDirectory], standardOutput: "/dev/null")
            let names = try FileManager.default.contentsOfDirectory(atPath: workDirectory).sorted()
            log("x. shared-object bombs: every command refuses each")
            var peak = 0
            for name in names {
                for command in Self.commands { peak = max(peak, try refusal(ict, command, file: workDirectory + "/" + name)) }
            }
            let peerMemory = try MetadataQueryRows.peakMemory(of: plistlibLoad(workDirectory + "/data.plist"))
            var memory = Row.memory(Self.memoryName, ours: peak, peer: Self.memoryPeer, peerBytes: peerMemory, target: .memoryAtMostMegabytes(100))
            memory.note =
                "the most any of \(names.count * Self.commands.count) runs held (validate, convert to binary1/xml1/json, inspect, get, set, "
                + "insert, remove, diff, plutil -p/-lint/-convert over \(names.joined(separator: ", "))); each exited 1 naming "
                + "maximumExpandedSize, printed nothing and left the folder's names and bytes as they were"

            let string = workDirectory + "/string.plist"
            log("\(Self.timeName): ict convert vs plistlib")
            let (ours, peer) = try processRuns.compare(
                reported: { try refusalSample(ict, ["convert", string, "--format", "json", "-o", workDirectory + "/out"]) },
                { try runChildChecked(plistlibLoad(string), standardOutput: "/dev/null").sample })
            var time = Row.timed(Self.timeName, ours: ours, peer: Self.timePeer, peerTime: peer, target: .atMost(milliseconds: 10))
            time.note = "wall time from spawn to exit of `ict convert string.plist --format json -o out`, refused with status 1"
            return [time, memory]
        } catch {
            return [
                .notMeasured(Self.timeName, peer: Self.timePeer, target: .atMost(milliseconds: 10), reason: "\(error)"),
                .notMeasured(Self.memoryName, peer: Self.memoryPeer, target: .memoryAtMostMegabytes(100), reason: "\(error)"),
            ]
        }
    }

    private func plistlibLoad(_ path: String) -> [String] {
        ["python3", "-c", "import plistlib, sys; plistlib.load(open(sys.argv[1], 'rb'))", path]
    }

    /// Runs one command on `file` and checks that it was refused as it must
    /// be, with nothing written; returns its peak memory.
    private func refusal(_ ict: String, _ command: [String], file: String) throws -> Int {
        let arguments = [ict] + command.map { $0 == "FILE" ? file : $0 == "OUT" ? workDirectory + "/out" : $0 }
        _ = try refused(arguments)
        // Measured again from a small intermediate process: this one's size would count in the child's peak.
        let before = try folderState()
        let peak = try MetadataQueryRows.peakMemory(of: arguments, mode: .measureRefusal)
        guard try folderState() == before else { throw BenchmarkFailure("`\(arguments.joined(separator: " "))` changed the folder") }
        return peak
    }

    private func refusalSample(_ ict: String, _ command: [String]) throws -> Sample {
        try refused([ict] + command).sample
    }

    private func refused(_ arguments: [String]) throws -> ChildOutcome {
        let before = try folderState()
        let output = temporaryPath("bomb-stdout"), errors = temporaryPath("bomb-stderr")
        defer {
            unlink(output)
            unlink(errors)
        }
        let outcome = try runChild(arguments, standardOutput: output, standardError: errors)
        let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        let printed = (try? Data(contentsOf: URL(fileURLWithPath: output)))?.count ?? 0
        guard outcome.exitStatus == 1, message.contains("maximumExpandedSize"), printed == 0, try folderState() == before else {
            throw BenchmarkFailure(
                "`\(arguments.joined(separator: " "))` was not refused as it must be: status "
                    + "\(String(describing: outcome.exitStatus)), \(printed) bytes printed, \(message)")
        }
        return outcome
    }

    /// The folder's names and each file's bytes.
    private func folderState() throws -> [String: Data] {
        var state: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: workDirectory) {
            state[name] = FileManager.default.contents(atPath: workDirectory + "/" + name) ?? Data()
        }
        return state
    }
}
