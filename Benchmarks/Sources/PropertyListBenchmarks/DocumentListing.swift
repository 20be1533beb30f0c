import DocumentFormats
import Foundation
import KeyedArchive
import SystemPackage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The document-listing rows (issue 5, acceptance 4), over one folder of
/// generated `.ict` documents (`DocumentFolder`):
///
/// - l. the bytes `ict list` reads against the metadata entries' total;
/// - m. `ict list` against `cat */ctdocument.metadata`, whole processes;
/// - n1. `ict list` against `ict list --data` (each document's data archive
///   decoded too), whole processes;
/// - n2. the same listing against one that also decodes each photo, in this
///   process with the DocumentFormats API.
struct DocumentListing {
    let stopwatch: Stopwatch
    let processRuns: Stopwatch
    /// The release build of `ict`, or nil when none was given.
    let ict: String?
    let folder: DocumentFolder
    /// The letters of the rows to run.
    let only: Set<Character>

    func run() throws -> [Row] {
        try folder.generateUnlessPresent()
        let paths = try folder.documentPaths()
        let metadataBytes = try folder.totalSize(ofEntry: ICTDocumentFormat.metadataEntryName, in: paths)
        let dataBytes = try folder.totalSize(ofEntry: ICTDocumentFormat.dataEntryName, in: paths)
        log("l/m/n. \(paths.count) documents: metadata entries \(megabytes(metadataBytes)), data entries \(megabytes(dataBytes))")
        var rows: [Row] = []
        if only.contains("l") { rows.append(bytesRead(metadataBytes: metadataBytes, dataBytes: dataBytes, count: paths.count)) }
        if only.contains("m") { rows.append(listVersusCat(count: paths.count)) }
        if only.contains("n") { rows += try listVersusDataDecoded(paths) }
        return rows
    }

    // MARK: l. bytes read

    private func bytesRead(metadataBytes: Int, dataBytes: Int, count: Int) -> Row {
        let benchmark = "l. ict list, \(count) documents: bytes read"
        let peer = "metadata entries' total"
        let target = Target.shareAtMost(percent: 110)
        guard let ict else {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "no `ict` given (--ict PATH)")
        }
        do {
            try checkSampleValidates(ict)
            let empty = temporaryPath("empty-folder")
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: empty) }
            log("l. ict list: bytes read (rchar)")
            let startUp = try runChildChecked([ict, "list", empty], standardOutput: "/dev/null", readingIOCounters: true)
            let listing = try runChildChecked([ict, "list", folder.path], standardOutput: "/dev/null", readingIOCounters: true)
            guard let read = listing.ioCounters?["rchar"], let calls = listing.ioCounters?["syscr"],
                let startUpRead = startUp.ioCounters?["rchar"]
            else { throw BenchmarkFailure("no rchar/syscr in /proc/PID/io") }
            var row = Row.share(
                benchmark, ours: "\(read) B", peer: peer, peerMeasurement: "\(metadataBytes) B",
                share: Double(read) / Double(metadataBytes), target: target)
            row.note =
                "rchar of the `ict list` child (every byte read(2)/pread(2) returned to it, page cache or not), "
                + "read from /proc/PID/io after it exited and before it was reaped (waitid with WNOWAIT); it includes the "
                + "\(startUpRead) B `ict list` of an empty folder reads (dynamic loader, start-up); \(calls) read calls. "
                + "rchar misses mapped reads: ict reads entries with pread and maps none; its \(listing.minorPageFaults) minor "
                + "page faults (at most 64 KB each with fault-around, \(megabytes(listing.minorPageFaults * 65_536))) could not "
                + "hide the \(megabytes(dataBytes)) of data entries"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peer, target: target, reason: "\(error)")
        }
    }

    /// Fails unless `ict validate` accepts the first and the last generated document.
    private func checkSampleValidates(_ ict: String) throws {
        let first = folder.path + "/" + DocumentFolder.documentName(0)
        let last = folder.path + "/" + DocumentFolder.documentName(DocumentFolder.documentCount - 1)
        _ = try runChildChecked([ict, "validate", first, last], standardOutput: "/dev/null")
    }

    // MARK: m. ict list vs cat

    private func listVersusCat(count: Int) -> Row {
        let benchmark = "m. ict list, \(count) documents"
        let peerName = "cat */ctdocument.metadata"
        let target = Target.atMostSlower(by: 2)
        guard let ict else {
            return .notMeasured(benchmark, peer: peerName, target: target, reason: "no `ict` given (--ict PATH)")
        }
        let ours = [ict, "list", folder.path]
        let peer = ["/bin/sh", "-c", "cd \"$0\" && cat -- */ctdocument.metadata", folder.path]
        do {
            log("m. ict list vs cat */ctdocument.metadata")
            let (ourTime, peerTime) = try processRuns.compare(
                reported: { try runChildChecked(ours, standardOutput: "/dev/null").sample },
                { try runChildChecked(peer, standardOutput: "/dev/null").sample })
            var row = Row.timed(benchmark, ours: ourTime, peer: peerName, peerTime: peerTime, target: target)
            row.note =
                "wall time from spawn to exit, standard output to /dev/null, page cache warmed by the warm-up runs "
                + "(and row l): `ict list DIR` vs `/bin/sh -c 'cd DIR && cat -- */ctdocument.metadata'`"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peerName, target: target, reason: "\(error)")
        }
    }

    // MARK: n. listing vs listing with the data decoded

    /// How much of each document's data a listing decodes.
    enum DataDecoding {
        case none
        /// The data entry read, its `CTData` archive decoded and its photo decoded to pixels.
        case archiveAndPhoto
    }

    /// n1: `ict list` against `ict list --data`, whole processes, over all
    /// documents; n2: in this process, the photo decoded too, over every
    /// tenth document (decoding 10,000 photos per run would take minutes).
    private func listVersusDataDecoded(_ paths: [String]) throws -> [Row] {
        var rows: [Row] = []
        let benchmark = "n1. ict list, \(paths.count) documents"
        let peerName = "ict list --data (data archive decoded)"
        if let ict {
            do {
                log("n1. ict list vs ict list --data")
                let (ourTime, peerTime) = try processRuns.compare(
                    reported: { try runChildChecked([ict, "list", folder.path], standardOutput: "/dev/null").sample },
                    { try runChildChecked([ict, "list", "--data", folder.path], standardOutput: "/dev/null").sample })
                var row = Row.timed(benchmark, ours: ourTime, peer: peerName, peerTime: peerTime, target: .faster(by: 20))
                row.note =
                    "wall time from spawn to exit, standard output to /dev/null, page cache warm: `ict list DIR` reads "
                    + "each metadata entry's display name and thumbnail header (ICTDocumentSummary); `ict list --data DIR` "
                    + "does the same and also opens each document and decodes its data entry (ICTDocumentFile.data(): the "
                    + "CTData archive, the photo kept as PNG bytes, its size from the PNG header)"
                rows.append(row)
            } catch {
                rows.append(.notMeasured(benchmark, peer: peerName, target: .faster(by: 20), reason: "\(error)"))
            }
        } else {
            rows.append(.notMeasured(benchmark, peer: peerName, target: .faster(by: 20), reason: "no `ict` given (--ict PATH)"))
        }

        let documents = stride(from: 0, to: paths.count, by: 10).map { paths[$0] }
        try expect(
            try Self.list(documents, decoding: .none).map(\.name) == Self.list(documents, decoding: .archiveAndPhoto).map(\.name),
            "listing with and without the data disagree")
        log("n2. listing vs the same, data archive + photo PNG decoded")
        let (ours, peer) = try stopwatch.compare(
            { try Self.list(documents, decoding: .none) },
            { try Self.list(documents, decoding: .archiveAndPhoto) })
        var row = Row.timed(
            "n2. list \(documents.count) documents (every 10th), in process", ours: ours,
            peer: "the same, data archive + photo PNG decoded", peerTime: peer, target: .faster(by: 20))
        row.note =
            "in this process with the DocumentFormats API: ICTDocumentSummary(ofDocumentAt:) per document, as `ict list`, "
            + "then a sort by name; the peer also calls ICTDocumentFile(contentsOf:).data() and decodes the photo to RGBA "
            + "pixels with PNGImage(pngBytes:), as a program showing the documents' photos must. Page cache warm"
        rows.append(row)
        return rows
    }

    /// One listing, as `ict list` makes it: display names and thumbnail sizes, sorted by name.
    private static func list(_ paths: [String], decoding: DataDecoding) throws -> [(name: String, thumbnail: (width: Int, height: Int)?)] {
        var rows: [(name: String, thumbnail: (width: Int, height: Int)?)] = []
        rows.reserveCapacity(paths.count)
        for path in paths {
            let summary = try ICTDocumentSummary(ofDocumentAt: FilePath(path))
            switch decoding {
            case .none:
                break
            case .archiveAndPhoto:
                guard let photo = try ICTDocumentFile(contentsOf: FilePath(path)).data().photo else { throw BenchmarkFailure("\(path) has no photo") }
                keep(try PNGImage(pngBytes: [UInt8](photo)))
            }
            rows.append((summary.displayName, summary.thumbnailSize.map { ($0.width, $0.height) }))
        }
        rows.sort { $0.name.lowercased() < $1.name.lowercased() }
        return rows
    }
}

/// The folder of generated documents: `documentCount` documents whose data
/// entries hold a photo of about 500 KB (560 × 560 PNG) and whose metadata
/// entries hold its 280 × 280 thumbnail, both real archives written with the
/// DocumentFormats types and `KeyedArchiver`, every entry a file of its own.
///
/// The photos are the six sample documents' photos (`SampleDocs/`) scaled to
/// 560 × 560 with seeded noise added (so they compress as a busy photograph
/// does), `templateCount` of them, each document taking one in turn; names
/// come from a seeded generator. Made once; a marker file with the parameters
/// says whether a folder can be reused.
struct DocumentFolder {
    static let documentCount = 10_000
    static let templateCount = 8
    /// The largest change the noise makes to a colour channel, either way.
    static let noiseAmplitude = 5
    static let markerName = ".parameters"
    static let parameters =
        "documents=\(documentCount) templates=\(templateCount) side=\(ICTDocumentFormat.photoSide) "
        + "noise=\(noiseAmplitude) generator=1\n"

    let path: String

    /// The name of document `index`, as `ict create` names them: `Friend.ict`, `Friend 1.ict`, …
    static func documentName(_ index: Int) -> String {
        index == 0 ? "Friend.ict" : "Friend \(index).ict"
    }

    /// The documents' paths, in name order.
    func documentPaths() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path)
            .filter { $0.hasSuffix(".\(ICTDocumentFormat.packageExtension)") }
            .sorted()
            .map { path + "/" + $0 }
    }

    /// The sum of the sizes of entry `name` in the documents at `paths`.
    func totalSize(ofEntry name: String, in paths: [String]) throws -> Int {
        var total = 0
        for document in paths {
            var status = stat()
            guard stat(document + "/" + name, &status) == 0 else { throw BenchmarkFailure("cannot stat \(document)/\(name)") }
            total += Int(status.st_size)
        }
        return total
    }

    func generateUnlessPresent() throws {
        let marker = path + "/" + Self.markerName
        if (try? String(contentsOfFile: marker, encoding: .utf8)) == Self.parameters {
            log("l/m/n. reusing the documents in \(path)")
            return
        }
        let clock = ContinuousClock()
        let start = clock.now
        log("l/m/n. generating \(Self.documentCount) documents in \(path) …")
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let templates = try Self.templates()
        var generator = SplitMix64(seed: 0x1C7D0C)
        let names = (0..<Self.documentCount).map { _ in
            (Self.firstNames.randomElement(using: &generator)!, Self.lastNames.randomElement(using: &generator)!)
        }
        // Two workers, each every other document: encoding and writing 6 GB takes a while.
        let workers = 2
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            do {
                for index in stride(from: worker, to: Self.documentCount, by: workers) {
                    try writeDocument(
                        index, firstName: names[index].0, lastName: names[index].1,
                        template: templates[index % templates.count])
                }
            } catch {
                failures.append(error)
            }
        }
        if let failure = failures.first { throw failure }
        try Data(Self.parameters.utf8).write(to: URL(fileURLWithPath: marker))
        log("l/m/n. generated in \(format((clock.now - start).milliseconds / 1000)) s")
    }

    private func writeDocument(_ index: Int, firstName: String, lastName: String, template: (photo: Data, thumbnail: Data)) throws {
        let displayName = "\(firstName) \(lastName)"
        let data = CTData(
            firstName: firstName, lastName: lastName, displayName: displayName,
            favoriteNumber: Double(Float(index) / 7), photo: template.photo)
        let metadata = CTMetadata(thumbnail: template.thumbnail, displayName: displayName)
        let document = path + "/" + Self.documentName(index)
        guard mkdir(document, 0o755) == 0 else { throw BenchmarkFailure("cannot make \(document)") }
        try Self.write(
            try KeyedArchiver.archive(metadata, forKey: ICTDocumentFormat.topKey),
            to: document + "/" + ICTDocumentFormat.metadataEntryName)
        try Self.write(
            try KeyedArchiver.archive(data, forKey: ICTDocumentFormat.topKey),
            to: document + "/" + ICTDocumentFormat.dataEntryName)
    }

    /// The photos (PNG, 560 × 560) and their thumbnails (PNG, 280 × 280, as `ICTDocumentFile` makes them).
    private static func templates() throws -> [(photo: Data, thumbnail: Data)] {
        let samples = Inputs.benchmarksDirectory.deletingLastPathComponent().appendingPathComponent("SampleDocs").path
        let names = try FileManager.default.contentsOfDirectory(atPath: samples).filter { $0.hasSuffix(".ict") }.sorted()
        try expect(!names.isEmpty, "no sample documents in \(samples)")
        let photos = try names.map { name in
            guard let photo = try ICTDocumentFile(contentsOf: FilePath(samples + "/" + name)).data().photo else {
                throw BenchmarkFailure("\(name) has no photo")
            }
            return try PNGImage(pngBytes: [UInt8](photo)).resized(width: ICTDocumentFormat.photoSide, height: ICTDocumentFormat.photoSide)
        }
        return try (0..<templateCount).map { index in
            let photo = withNoise(photos[index % photos.count], seed: UInt64(index))
            return (Data(try photo.pngBytes()), Data(try ICTDocumentFile.thumbnail(of: photo).pngBytes()))
        }
    }

    /// `image` with each colour channel moved by up to `noiseAmplitude`, alpha kept.
    private static func withNoise(_ image: PNGImage, seed: UInt64) -> PNGImage {
        var generator = SplitMix64(seed: seed)
        var pixels = image.pixels
        for offset in pixels.indices where offset % 4 != 3 {
            let change = Int.random(in: -noiseAmplitude...noiseAmplitude, using: &generator)
            pixels[offset] = UInt8(clamping: Int(pixels[offset]) + change)
        }
        return PNGImage(width: image.width, height: image.height, pixels: pixels)
    }

    private static func write(_ bytes: [UInt8], to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw BenchmarkFailure("cannot write \(path)")
        }
    }

    private static let firstNames = [
        "Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "Hedy",
        "John", "Ken", "Leslie", "Margaret", "Niklaus", "Radia", "Tony",
    ]
    private static let lastNames = [
        "Allen", "Backus", "Dijkstra", "Hamilton", "Hoare", "Hopper", "Kernighan", "Knuth",
        "Lamport", "Liskov", "Lovelace", "Perlman", "Ritchie", "Shannon", "Turing", "Wirth",
    ]
}

/// The errors of concurrent workers, kept under a lock.
private final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [Error] = []

    func append(_ error: Error) {
        lock.withLock { errors.append(error) }
    }

    var first: Error? { lock.withLock { errors.first } }
}
