import Foundation
import PropertyList
import SystemPackage

/// The rows of the table, each measured against its peer in this one run,
/// on the same input bytes.
struct Suite {
    let inputs: Inputs
    /// For work inside this process.
    let stopwatch: Stopwatch
    /// For whole processes.
    let processRuns: Stopwatch
    /// The release build of `ict`, or nil when none was given.
    let ict: String?
    let plistutil: String
    /// The letters of the rows to run.
    let only: Set<Character>
    private(set) var notes: [String] = []

    init(inputs: Inputs, stopwatch: Stopwatch, processRuns: Stopwatch, ict: String?, plistutil: String, only: Set<Character>) {
        self.inputs = inputs
        self.stopwatch = stopwatch
        self.processRuns = processRuns
        self.ict = ict
        self.plistutil = plistutil
        self.only = only
    }

    private var binarySize: String { megabytes(inputs.binaryData.count) }
    private var xmlSize: String { megabytes(inputs.xmlData.count) }

    mutating func run() throws -> [Row] {
        var rows: [Row] = []
        // First, while this process is small: the type registry's load time is
        // tens of milliseconds and, measured after the property-list rows have
        // filled the heap with hundreds of megabytes, it was half again slower.
        if only.contains("j") || only.contains("k") { rows += uniformTypeRows() }
        log("decoding the reference value")
        let reference = try BinaryPropertyListReader().read(inputs.binaryData)
        if only.contains("a") { rows.append(try binaryRead(reference: reference)) }
        if only.contains("b") {
            rows.append(binaryToXMLProcess(reference: reference))
            rows.append(try dataHeavyBinaryToXMLProcess())
        }
        if only.contains("c") { rows.append(try binaryWrite(reference: reference)) }
        if only.contains("d") { rows += xmlRead() }
        if only.contains("e") { rows.append(try valueByKeyPath(reference: reference)) }
        if only.contains("f") { rows.append(peakMemoryOfBinaryRead()) }
        rows += try keyedArchiveRows()
        return rows.sorted { $0.benchmark < $1.benchmark }
    }

    // MARK: a. binary read

    private mutating func binaryRead(reference: PropertyListValue) throws -> Row {
        let data = inputs.binaryData
        let foundation = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        try expect(
            foundationDictionaryCount(foundation) == reference.dictionaryValue?.count,
            "Foundation and ICTKit disagree on the binary file's top-level entries")
        log("a. binary read: ICTKit vs Foundation")
        let reader = BinaryPropertyListReader()
        let (ours, peer) = try stopwatch.compare(
            { try reader.read(data) },
            { try PropertyListSerialization.propertyList(from: data, options: [], format: nil) })
        return .timed(
            "a. binary read \(binarySize) → value", ours: ours,
            peer: "Foundation PropertyListSerialization", peerTime: peer, target: .faster(by: 10))
    }

    // MARK: b. binary → XML, whole process

    private mutating func binaryToXMLProcess(reference: PropertyListValue) -> Row {
        binaryToXMLProcess(benchmark: "b. binary → XML, whole process", path: inputs.binaryPath, reference: reference)
    }

    /// Row b2: the same over issue 24's data-heavy file (a fifth each short
    /// strings, integers, data of 100–200 bytes, arrays of reals, dictionaries of dates).
    private mutating func dataHeavyBinaryToXMLProcess() throws -> Row {
        let data = try Data(contentsOf: URL(fileURLWithPath: inputs.dataHeavyPath))
        let reference = try BinaryPropertyListReader().read(data)
        return binaryToXMLProcess(
            benchmark: "b2. data-heavy \(megabytes(data.count)) binary → XML, whole process", path: inputs.dataHeavyPath,
            reference: reference)
    }

    private mutating func binaryToXMLProcess(benchmark: String, path: String, reference: PropertyListValue) -> Row {
        let peerName = "plistutil -f xml (libplist)"
        let target = Target.faster(by: 3)
        guard let ict else {
            return .notMeasured(benchmark, peer: peerName, target: target, reason: "no `ict` given (--ict PATH)")
        }
        let ours = [ict, "convert", path, "--format", "xml1", "-o", "-"]
        let peer = [plistutil, "-i", path, "-f", "xml", "-o", "-"]
        do {
            try checkConversion(ours, reference: reference, name: "ict convert")
            try checkConversion(peer, reference: reference, name: "plistutil")
            log("\(benchmark): ict convert vs plistutil")
            let (ourTime, peerTime) = try processRuns.compare(
                reported: { try runChildChecked(ours, standardOutput: "/dev/null").sample },
                { try runChildChecked(peer, standardOutput: "/dev/null").sample })
            var row = Row.timed(benchmark, ours: ourTime, peer: peerName, peerTime: peerTime, target: target)
            row.note =
                "wall time from spawn to exit, standard output to /dev/null for both: `\(ours.joined(separator: " "))` vs `\(peer.joined(separator: " "))`"
            return row
        } catch {
            return .notMeasured(benchmark, peer: peerName, target: target, reason: "\(error)")
        }
    }

    /// Runs a conversion once into a file and checks that its XML holds the reference value.
    private mutating func checkConversion(_ command: [String], reference: PropertyListValue, name: String) throws {
        let output = temporaryPath("xml")
        defer { unlink(output) }
        _ = try runChildChecked(command, standardOutput: output)
        let xml = try Data(contentsOf: URL(fileURLWithPath: output))
        let value = try XMLPropertyListReader().read(xml)
        if !sameContent(value, reference) {
            notes.append("b: the XML that \(name) wrote does not read back (with ICTKit's XML reader) as exactly the input's value")
        }
    }

    // MARK: c. binary write

    private mutating func binaryWrite(reference: PropertyListValue) throws -> Row {
        let writer = BinaryPropertyListWriter()
        let graph = foundationObject(reference)
        let ourBytes = try writer.encode(reference)
        try expect(
            try BinaryPropertyListReader().read(Data(ourBytes)) == reference,
            "ICTKit's binary writer does not round-trip the input")
        let theirBytes = try PropertyListSerialization.data(fromPropertyList: graph, format: .binary, options: 0)
        if try !sameContent(BinaryPropertyListReader().read(theirBytes), reference) {
            notes.append("c: Foundation's binary output does not read back as the input's value")
        }
        notes.append("c: output sizes: ICTKit \(megabytes(ourBytes.count)), Foundation \(megabytes(theirBytes.count))")
        log("c. binary write: ICTKit vs Foundation")
        let (ours, peer) = try stopwatch.compare(
            { try writer.encode(reference) },
            { try PropertyListSerialization.data(fromPropertyList: graph, format: .binary, options: 0) })
        return .timed(
            "c. binary write value → bytes", ours: ours,
            peer: "Foundation PropertyListSerialization (NS objects)", peerTime: peer, target: .faster(by: 10))
    }

    // MARK: d. XML read

    private mutating func xmlRead() -> [Row] {
        let versusFoundation = "d. XML read \(xmlSize) → value"
        let versusLibXML2 = "d. XML read vs bare libxml2 pass"
        let foundationName = "Foundation PropertyListSerialization"
        let libxml2Name = "libxml2 SAX2 pass as ICTKit drives it, nothing built"
        do {
            let data = inputs.xmlData
            let reader = XMLPropertyListReader()
            let value = try reader.read(data)
            let foundation = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            try expect(
                foundationDictionaryCount(foundation) == value.dictionaryValue?.count,
                "Foundation and ICTKit disagree on the XML file's top-level entries")
            try expect(data.withUnsafeBytes(bareXMLSAX2Pass) != nil, "libxml2 rejects the XML input")
            log("d. XML read: ICTKit vs Foundation")
            let (ours, peer) = try stopwatch.compare(
                { try reader.read(data) },
                { try PropertyListSerialization.propertyList(from: data, options: [], format: nil) })
            log("d. XML read: ICTKit vs a bare libxml2 pass")
            let (oursAgain, bare) = try stopwatch.compare(
                { try reader.read(data) },
                { data.withUnsafeBytes(bareXMLSAX2Pass) })
            return [
                .timed(versusFoundation, ours: ours, peer: foundationName, peerTime: peer, target: .faster(by: 5)),
                .timed(versusLibXML2, ours: oursAgain, peer: libxml2Name, peerTime: bare, target: .atMostSlower(by: 2)),
            ]
        } catch {
            return [
                .notMeasured(versusFoundation, peer: foundationName, target: .faster(by: 5), reason: "\(error)"),
                .notMeasured(versusLibXML2, peer: libxml2Name, target: .atMostSlower(by: 2), reason: "\(error)"),
            ]
        }
    }

    // MARK: e. one value by key path

    private mutating func valueByKeyPath(reference: PropertyListValue) throws -> Row {
        let path = inputs.binaryPath
        let keyPath = inputs.deepKeyPath
        let expected = try walk(reference, keyPath)
        let found = try BinaryPropertyListDocument(file: MappedFile(filePath: FilePath(path))).value(at: keyPath)
        try expect(found == expected, "value(at: \(keyPath)) differs from the same value in the decoded file")
        log("e. value by key path vs whole decode")
        let (ours, whole) = try stopwatch.compare(
            { () throws -> (BinaryPropertyListDocument, PropertyListValue?) in
                let document = try BinaryPropertyListDocument(file: MappedFile(filePath: FilePath(path)))
                return (document, try document.value(at: keyPath))
            },
            { () throws -> (MappedFile, PropertyListValue?) in
                let file = try MappedFile(filePath: FilePath(path))
                let value = try BinaryPropertyListReader().read(file.bytes)
                return (file, try walk(value, keyPath))
            })
        var row = Row.timed(
            "e. one value by key path (\(binarySize) file)", ours: ours,
            peer: "ICTKit: map + decode whole file", peerTime: whole, target: .faster(by: 100))
        row.note = "`\(keyPath)`, in the last top-level entry; both sides map the file and check the trailer inside the timed part"
        return row
    }

    // MARK: f. peak memory

    private mutating func peakMemoryOfBinaryRead() -> Row {
        let benchmark = "f. peak memory, binary read"
        let target = Target.memoryAtMost(timesFileSize: 4)
        let peerName = "file size"
        do {
            log("f. peak memory: child processes")
            let baseline = try medianPeakMemory(of: [ChildMode.start.rawValue])
            let decoding = try medianPeakMemory(of: [ChildMode.decode.rawValue, inputs.binaryPath])
            let extra = decoding - baseline
            let fileSize = inputs.binaryData.count
            let ratio = Double(extra) / Double(fileSize)
            guard case .memoryAtMost(let factor) = target else { preconditionFailure() }
            return Row(
                benchmark: benchmark, ours: megabytes(extra), peer: peerName,
                peerMeasurement: megabytes(fileSize), ratio: "\(format(ratio))× file size",
                target: target, met: ratio <= factor,
                note: "a child process maps the file and decodes it whole with BinaryPropertyListReader.read(MappedFile); "
                    + "ICTKit column = its peak RSS (\(megabytes(decoding))) minus the peak RSS of the same executable "
                    + "started doing nothing (\(megabytes(baseline))); the mapped pages resident at the peak count in it "
                    + "(the reader gives back those it has moved past)")
        } catch {
            return .notMeasured(benchmark, peer: peerName, target: target, reason: "\(error)")
        }
    }

    /// The median peak RSS of this executable run in `mode`, over three runs.
    ///
    /// Each child is started through an intermediate copy of this executable
    /// (`ChildMode.measure`): Linux carries the peak RSS of the address space
    /// a process execs from into the new program's `ru_maxrss`, and this
    /// process is large by now; the small intermediate is what the measured
    /// child is spawned from.
    private func medianPeakMemory(of mode: [String]) throws -> Int {
        var peaks: [Int] = []
        for _ in 0..<3 {
            let output = temporaryPath("peak")
            defer { unlink(output) }
            _ = try runChildChecked(
                [currentExecutable, ChildMode.measure.rawValue, currentExecutable] + mode,
                standardOutput: output)
            let text = try String(contentsOfFile: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let peak = Int(text) else { throw BenchmarkFailure("the measuring child printed \(text.debugDescription)") }
            peaks.append(peak)
        }
        return peaks.sorted()[1]
    }
}

/// The value at `keyPath` inside an already decoded value.
func walk(_ value: PropertyListValue, _ keyPath: PropertyListKeyPath) throws -> PropertyListValue? {
    var current = value
    for component in keyPath.components {
        switch component {
        case .key(let key):
            guard let next = current[key] else { return nil }
            current = next
        case .index(let index):
            guard let array = current.arrayValue, array.indices.contains(index) else { return nil }
            current = array[index]
        }
    }
    return current
}

/// Whether two values hold the same content, dictionaries compared without
/// regard to key order (Foundation's dictionaries have none).
func sameContent(_ left: PropertyListValue, _ right: PropertyListValue) -> Bool {
    switch (left, right) {
    case (.dictionary(let left), .dictionary(let right)):
        left.count == right.count && left.allSatisfy { key, value in right[key].map { sameContent(value, $0) } ?? false }
    case (.array(let left), .array(let right)):
        left.count == right.count && zip(left, right).allSatisfy(sameContent)
    default:
        left == right
    }
}

func expect(_ condition: Bool, _ failure: @autoclosure () -> String) throws {
    if !condition { throw BenchmarkFailure(failure()) }
}
