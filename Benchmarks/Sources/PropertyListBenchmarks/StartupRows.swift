import Foundation
import PropertyList

/// Rows s1–s4: whole `ict` processes on small jobs, where start-up is most
/// of the time (issue 12, acceptance 3). People convert files one process
/// at a time in loops, so these are the everyday case.
struct StartupRows {
    let processRuns: Stopwatch
    let ict: String?
    let plistutil: String
    let plutil: String?
    let dataDirectory: URL

    /// Small processes vary by a tenth of a millisecond from run to run:
    /// many runs, so the median is steady.
    static let repetitions = 201

    func run() throws -> [Row] {
        let inputs = try Inputs.load(from: dataDirectory)
        let small = inputs.smallBinaryPath
        let convertName = "s1. 575-byte binary → XML, whole process"
        let plutilName = "s2. 575-byte binary → XML, whole process"
        let conformsName = "s3. ict types conforms public.png public.image"
        let getName = "s4. ict get of one key, 19 MB binary, whole process"
        guard let ict else {
            let reason = "no `ict` given (--ict PATH)"
            return [
                .notMeasured(convertName, peer: "plistutil", target: .atMostSlower(by: 1.5), reason: reason),
                .notMeasured(plutilName, peer: "Apple plutil", target: .atMostSlower(by: 0.5), reason: reason),
                .notMeasured(conformsName, peer: "/bin/true", target: .atMost(milliseconds: 5), reason: reason),
                .notMeasured(getName, peer: "s1's ict", target: .atMostSlower(by: 2), reason: reason),
            ]
        }
        var stopwatch = processRuns
        stopwatch.repetitions = max(stopwatch.repetitions, Self.repetitions)
        let smallValue = try PropertyListReader().read(Data(contentsOf: URL(fileURLWithPath: small))).value
        let ours = [ict, "convert", small, "--format", "xml1", "-o", "-"]
        var rows: [Row] = []

        rows.append(
            measure(
                convertName, ours: ours, peerName: "plistutil -f xml (libplist)",
                peer: [plistutil, "-i", small, "-f", "xml", "-o", "-"], target: .atMostSlower(by: 1.5),
                check: smallValue, stopwatch))
        if let plutil {
            rows.append(
                measure(
                    plutilName, ours: ours, peerName: "Apple plutil -convert xml1 (swift-corelibs-foundation)",
                    peer: [plutil, "-convert", "xml1", "-o", "-", small], target: .atMostSlower(by: 0.5),
                    check: smallValue, stopwatch))
        } else {
            rows.append(
                .notMeasured(
                    plutilName, peer: "Apple plutil", target: .atMostSlower(by: 0.5),
                    reason: "no plutil found (it ships with the Swift toolchain on Linux: --plutil PATH)"))
        }
        rows.append(
            measure(
                conformsName, ours: [ict, "types", "conforms", "public.png", "public.image"],
                peerName: "/bin/true (a process that does nothing, for scale)", peer: ["/bin/true"],
                target: .atMost(milliseconds: 5), check: nil, stopwatch))
        let keyPath = inputs.deepKeyPath.plutilDescription
        var getRow = measure(
            getName, ours: [ict, "get", inputs.binaryPath, keyPath],
            peerName: "s1's ict convert of the 575-byte file", peer: ours,
            target: .atMostSlower(by: 2), check: nil, stopwatch)
        getRow.note = (getRow.note.map { $0 + "; " } ?? "") + "key path \(keyPath)"
        rows.append(getRow)
        return rows
    }

    /// Times `ours` against `peer`, both whole processes with standard output
    /// to /dev/null, after checking once that each XML-writing command writes
    /// `check`'s value.
    private func measure(
        _ name: String, ours: [String], peerName: String, peer: [String], target: Target,
        check: PropertyListValue?, _ stopwatch: Stopwatch
    ) -> Row {
        do {
            if let check {
                for command in [ours, peer] {
                    let output = temporaryPath("xml")
                    defer { unlink(output) }
                    _ = try runChildChecked(command, standardOutput: output)
                    let written = try PropertyListReader().read(Data(contentsOf: URL(fileURLWithPath: output))).value
                    try expect(sameContent(written, check), "`\(command.joined(separator: " "))` did not write the input's value")
                }
            } else {
                _ = try runChildChecked(ours, standardOutput: "/dev/null")
            }
            log("\(name.prefix(3)) \(ours.dropFirst().prefix(2).joined(separator: " ")) vs \(peerName)")
            let (ourTime, peerTime) = try stopwatch.compare(
                reported: { try runChildChecked(ours, standardOutput: "/dev/null").sample },
                { try runChildChecked(peer, standardOutput: "/dev/null").sample })
            var row = Row.timed(name, ours: ourTime, peer: peerName, peerTime: peerTime, target: target)
            row.note = "wall time from spawn to exit, standard output to /dev/null: `\(ours.joined(separator: " "))` vs `\(peer.joined(separator: " "))`"
            return row
        } catch {
            return .notMeasured(name, peer: peerName, target: target, reason: "\(error)")
        }
    }
}
