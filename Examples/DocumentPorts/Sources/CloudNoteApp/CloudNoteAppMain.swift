import AppleCompatibility
import Foundation

/// `CloudNoteApp write NAME TEXT`: asks for the default ubiquity container
/// (`ICT_UBIQUITY_CONTAINER`), saves a draft note on the device, moves it into
/// the container and out again, then saves the note NAME with TEXT, moves it in
/// to stay, and lists the container's notes with their ubiquitous item keys.
///
/// `CloudNoteApp read NAME`: lists the container's notes as the query finds
/// them, waiting until NAME is among them (another device's, arriving through
/// the sync engine) and current where the engine says, and opens it, printing
/// its text and state.
///
/// Every wait ends within 30 seconds. Exits 1 when the container is missing,
/// a step fails (its error printed) or NAME does not arrive; 64 for a bad usage.
@main
struct CloudNoteApp {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let library = CloudNoteLibrary() else {
            print("CloudNoteApp: no ubiquity container (iCloud is off): set ICT_UBIQUITY_CONTAINER or configure one")
            exit(1)
        }
        print("container: \(library.containerURL.path)")
        do {
            switch (arguments.first, arguments.count) {
            case ("write", 3): try await write(name: arguments[1], text: arguments[2], in: library)
            case ("read", 2): try await read(name: arguments[1], in: library)
            default:
                print("usage: CloudNoteApp write NAME TEXT | CloudNoteApp read NAME")
                exit(64)
            }
        } catch {
            print("CloudNoteApp: error: \(error)")
            exit(1)
        }
        exit(0)
    }

    @MainActor static func write(name: String, text: String, in library: CloudNoteLibrary) async throws {
        let device = FileManager.default.temporaryDirectory.appendingPathComponent("CloudNoteApp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: device, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: device) }

        let draft = try await save("Draft.icfnote", "a draft", in: device)
        let draftInCloud = try library.moveToCloud(draft)
        print("moved in: \(draftInCloud.lastPathComponent), in iCloud: \(library.isInCloud(draftInCloud))")
        let draftBack = try library.moveToDevice(draftInCloud, folder: device)
        print("moved out: \(draftBack.lastPathComponent), in iCloud: \(library.isInCloud(draftBack))")

        let note = try library.moveToCloud(try await save(name + ".icfnote", text, in: device))
        print("moved in to stay: \(note.lastPathComponent), in iCloud: \(library.isInCloud(note))")
        print(try await notes(in: library) { names($0).contains(note.lastPathComponent) })
    }

    @MainActor static func read(name: String, in library: CloudNoteLibrary) async throws {
        let fileName = name + ".icfnote"
        // The query of the ubiquitous documents needs the folder (Apple's does not): made as the app's first launch would.
        try FileManager.default.createDirectory(at: library.documentsURL, withIntermediateDirectories: true)
        // Listed, and current where the engine reports on it (Syncthing may list it before its index says so).
        print(
            try await notes(in: library) { notes in
                notes.contains { note in
                    names([note]) == [fileName]
                        && (note.value(forAttribute: NSMetadataUbiquitousItemDownloadingStatusKey) as? String).map {
                            $0 == NSMetadataUbiquitousItemDownloadingStatusCurrent
                        } ?? true
                }
            })
        let note = CloudNote(fileURL: library.documentsURL.appendingPathComponent(fileName))
        guard await note.open() else { throw CocoaError(.fileReadUnknown) }
        print("\(fileName): \"\(note.text)\", state \(note.documentState)")
        _ = await note.close()
    }

    /// Saves a new note on the device.
    @MainActor static func save(_ fileName: String, _ text: String, in folder: URL) async throws -> URL {
        let url = folder.appendingPathComponent(fileName)
        let note = CloudNote(fileURL: url)
        note.text = text
        guard await note.save(to: url, for: .forCreating), await note.close() else { throw CocoaError(.fileWriteUnknown) }
        return url
    }

    /// The notes the query lists once `until` holds for them (at most
    /// 30 seconds), one line each with the ubiquitous item keys it has.
    @MainActor static func notes(in library: CloudNoteLibrary, until: @escaping ([NSMetadataItem]) -> Bool) async throws -> String {
        let (lists, continuation) = AsyncStream.makeStream(of: [NSMetadataItem].self)
        library.notesDidChange = { continuation.yield($0) }
        guard library.startQuery() else { throw CocoaError(.fileReadNoSuchFile) }
        defer { library.stopQuery() }
        let deadline = Task {
            try? await Task.sleep(for: .seconds(30))
            continuation.finish()
        }
        defer { deadline.cancel() }
        var last: [NSMetadataItem] = []
        for await notes in lists {
            last = notes
            if until(notes) { return describe(notes) }
        }
        throw CocoaError(.fileReadNoSuchFile, userInfo: [NSLocalizedFailureReasonErrorKey: "not listed within 30 s; listed:\n\(describe(last))"])
    }

    /// The notes' file names.
    static func names(_ notes: [NSMetadataItem]) -> [String] {
        notes.compactMap { $0.value(forAttribute: NSMetadataItemFSNameKey) as? String }
    }

    /// One line per note: its name, then each ubiquitous item key it has with its value.
    static func describe(_ notes: [NSMetadataItem]) -> String {
        let lines = notes.map { item in
            let name = item.value(forAttribute: NSMetadataItemFSNameKey) as? String ?? "?"
            let keys = item.attributes.filter { $0.hasPrefix("NSMetadataUbiquitousItem") }.sorted()
            return "note: \(name)" + keys.map { " \($0)=\(item.value(forAttribute: $0).map { "\($0)" } ?? "nil")" }.joined()
        }
        return lines.isEmpty ? "no notes" : lines.joined(separator: "\n")
    }
}
