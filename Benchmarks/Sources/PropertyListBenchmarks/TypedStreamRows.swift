import Foundation
import TypedStream

// Row t: typed stream decoding against pytypedstream (issue 24, acceptance 5).

/// Reads and decodes the typed stream fixtures (iMessage bodies and old
/// nibs, `Tests/TypedStreamTests/Fixtures`) many times over, against
/// pytypedstream's `unarchive_from_data` over the same bytes in a Python
/// child that times its own loop (so Python's start-up is not counted).
struct TypedStreamRows {
    let stopwatch: Stopwatch
    static let name = "t. typedstream decode vs pytypedstream"
    static let peer = "pytypedstream 0.1.0 unarchive_from_data"
    /// Passes over every fixture in one sample.
    static let passes = 20

    static let fixtures = Inputs.benchmarksDirectory.deletingLastPathComponent().appendingPathComponent("Tests/TypedStreamTests/Fixtures")
    /// The fixtures pytypedstream's `unarchive_from_data` decodes (its AppKit
    /// classes refuse the ClipboardViewer and TLayer MainMenu nibs, which its
    /// stream reader and ours read).
    static let names = [
        "AttributedBodyTextOnly", "AttributedBodyTextOnly2", "Blank", "MultiPart", "URL", "WeirdText", "PathDemo-MainMenu.objects.nib",
        "TLayer-TLayerDemo.objects.nib",
    ]

    /// Times its own loop and prints "wall-seconds cpu-seconds".
    static let peerScript = """
        import sys, time
        from typedstream import archiving
        passes = int(sys.argv[1])
        blobs = [open(path, "rb").read() for path in sys.argv[2:]]
        for blob in blobs:
            archiving.unarchive_from_data(blob)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(passes):
            for blob in blobs:
                archiving.unarchive_from_data(blob)
        print(time.perf_counter() - wall, time.process_time() - cpu)
        """

    func run() throws -> Row {
        let paths = Self.names.map { Self.fixtures.appendingPathComponent($0).path }
        let blobs = try paths.map { path -> [UInt8] in
            guard let data = FileManager.default.contents(atPath: path) else { throw BenchmarkFailure("\(path) is missing") }
            return Array(data)
        }
        let decodeAll = { () throws -> Int in
            var objects = 0
            for _ in 0..<Self.passes {
                for blob in blobs {
                    let document = try TypedStreamReader().read(blob)
                    var decoder = TypedStreamFoundationDecoder(document: document)
                    _ = try decoder.decodeRoot()
                    objects += document.objects.count
                }
            }
            return objects
        }
        let objects = try decodeAll() / Self.passes
        _ = try Self.peerSample(paths)  // Fails here, before timing, when pytypedstream is not installed.
        log("t. typedstream: decode vs pytypedstream")
        let (ours, peer) = try stopwatch.compare(reported: { try Stopwatch.time(decodeAll) }, { try Self.peerSample(paths) })
        var row = Row.timed(Self.name, ours: ours, peer: Self.peer, peerTime: peer, target: .faster(by: 20))
        row.note =
            "\(Self.passes) passes over \(blobs.count) fixtures (\(blobs.reduce(0) { $0 + $1.count }) bytes, \(objects) objects): "
            + "read and the root decoded by class name; pytypedstream in a child timing its own loop"
        return row
    }

    private static func peerSample(_ paths: [String]) throws -> Sample {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", peerScript, String(passes)] + paths
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard process.terminationStatus == 0, fields.count == 2 else {
            let lastLine = String(decoding: message, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
            throw BenchmarkFailure(
                "pytypedstream failed (status \(process.terminationStatus)): \(lastLine) (scripts/install-deps.sh bench installs it)")
        }
        return Sample(wall: .seconds(fields[0]), cpu: .seconds(fields[1]))
    }
}
