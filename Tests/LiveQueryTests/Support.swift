import DocumentFormats
import Foundation
import LiveQuery
import TestSupport

/// A fresh folder in the temporary directory, removed by `remove()`.
struct Scratch {
    let path: String

    init() throws {
        path = try ScratchFolder.make("ict-query").path
    }

    func at(_ relative: String) -> String { path + "/" + relative }

    /// Writes `text` to `relative` (folders on the way made).
    func write(_ text: String, to relative: String) throws {
        let url = URL(fileURLWithPath: at(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Writes `text` to a temporary name beside `relative`, then renames it to `relative` in one step (as sync tools do).
    func renameIntoPlace(_ text: String, to relative: String, temporaryName: String) throws {
        let temporary = relative.lastIndex(of: "/").map { String(relative[...$0]) + temporaryName } ?? temporaryName
        try write(text, to: temporary)
        // rename(2), which replaces what is there (FileManager's move does not).
        guard rename(at(temporary), at(relative)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    func makeFolder(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: at(relative), withIntermediateDirectories: true)
    }

    func remove(_ relative: String) throws { try FileManager.default.removeItem(atPath: at(relative)) }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// The updates a query hands its handler, waited for with a bound.
final class Recorder: @unchecked Sendable {
    // @unchecked: `updates` is touched only under `lock`.
    private let lock = NSLock()
    private var updates: [MetadataQueryUpdate] = []
    private let arrived = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "MetadataQueryTests.handler")

    func handle(_ update: MetadataQueryUpdate) {
        lock.withLock { updates.append(update) }
        arrived.signal()
    }

    /// The next update not yet taken, waiting at most `seconds` for it; nil when none came.
    func next(within seconds: Double = 60) -> MetadataQueryUpdate? {
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        return lock.withLock { updates.removeFirst() }
    }
}

/// A query of `scope` started with a recorder, and its gathering; it knows
/// `kinds` (by default DocumentFormats's, as `ict list --watch` and an app of
/// the original documents register them).
func startedQuery(
    _ scope: String, predicate: MetadataQueryPredicate = .init(), settle: Duration = .milliseconds(200),
    kinds: MetadataDocumentKinds = DocumentKind.metadataDocumentKinds
) throws -> (query: MetadataQuery, recorder: Recorder, gathering: MetadataQueryUpdate?) {
    let query = MetadataQuery(scopes: [scope], predicate: predicate, settleInterval: settle)
    query.documentKinds = kinds
    let recorder = Recorder()
    try query.start(on: recorder.queue) { recorder.handle($0) }
    return (query, recorder, recorder.next())
}

/// The items' names, in order.
func names(_ items: [MetadataItem]?) -> [String] { items?.map(\.fsName) ?? ["(no update)"] }

/// Runs `executable` with `arguments`; its standard output.
func output(of executable: String, _ arguments: [String]) throws -> String {
    try ProgramRunner.run(executable, arguments).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}
