import FileCoordination
import Foundation

/// A test child for FileCoordinationTests (and a bench row): each mode makes
/// coordinated accesses of one item, as another process would.
///
/// - `increment PATH COUNT`: COUNT read-modify-writes (`.forMerging`) of the
///   decimal number in PATH (a file), or in PATH/count (a package directory),
///   each written to a temporary beside it and renamed into place.
/// - `save-package PATH COUNT`: COUNT saves of the package PATH, each writing
///   the next number into its entries `a` and then `b`, in place: a reader
///   that does not coordinate could see them differ.
/// - `hold PATH`: a coordinated write of PATH, said as `locked` on standard
///   output, held until standard input ends (or the process is killed).
/// - `move SOURCE DESTINATION`: renames SOURCE to DESTINATION writing both
///   (`.forMoving`, `.forReplacing`) and says so (`itemMoved`).
/// - `delete PATH`: removes PATH in a `.forDeleting` write.
/// - `append PATH TEXT`: appends the line TEXT to PATH in a `.forMerging` write.
/// - `present PATH`: presents PATH, says `ready`, then one line per event
///   (`changed`, `moved PATH`, `deleted`, `gained PATH`); asked to save, it
///   appends the line `presenter` to PATH in its own coordinated write and
///   says `saved`. Until standard input ends.
@main
enum CoordinationStress {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            switch (arguments.first, arguments.count) {
            case ("increment", 3): try increment(arguments[1], times: Int(arguments[2]) ?? 0)
            case ("save-package", 3): try savePackage(arguments[1], times: Int(arguments[2]) ?? 0)
            case ("hold", 2): try hold(arguments[1])
            case ("move", 3): try move(arguments[1], to: arguments[2])
            case ("delete", 2):
                try FileCoordinator().coordinate(writing: arguments[1], options: .forDeleting) { try FileManager.default.removeItem(atPath: $0) }
            case ("append", 3): try append(arguments[2], to: arguments[1], coordinator: FileCoordinator())
            case ("present", 2): try present(arguments[1])
            default:
                say("usage: CoordinationStress increment|save-package|hold|move|delete|append|present ARGUMENTS\n", to: 2)
                exit(64)
            }
        } catch {
            say("CoordinationStress: \(error)\n", to: 2)
            exit(1)
        }
    }

    /// Writes `text` to a descriptor at once (no buffering between processes).
    static func say(_ text: String, to descriptor: Int32 = 1) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    static func increment(_ path: String, times: Int) throws {
        let coordinator = FileCoordinator()
        var isDirectory: ObjCBool = false
        let file = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue ? path + "/count" : path
        for _ in 0..<times {
            try coordinator.coordinate(writing: path, options: .forMerging) { _ in
                let text = try String(contentsOfFile: file, encoding: .utf8)
                let next = (Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) + 1
                let temporary = file + ".tmp-\(getpid())"
                try Data("\(next)\n".utf8).write(to: URL(fileURLWithPath: temporary))
                guard rename(temporary, file) == 0 else { throw POSIXError(.EIO) }
            }
        }
    }

    static func savePackage(_ path: String, times: Int) throws {
        let coordinator = FileCoordinator()
        for number in 1...max(1, times) {
            try coordinator.coordinate(writing: path, options: .forReplacing) { _ in
                for entry in ["a", "b"] {
                    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path + "/" + entry))
                    try handle.truncate(atOffset: 0)
                    try handle.write(contentsOf: Data(String(repeating: "\(number)\n", count: 64).utf8))
                    try handle.close()
                }
            }
        }
    }

    static func hold(_ path: String) throws {
        try FileCoordinator().coordinate(writing: path) { _ in
            say("locked\n")
            while readLine() != nil {}
        }
    }

    static func move(_ source: String, to destination: String) throws {
        let coordinator = FileCoordinator()
        try coordinator.coordinate(writing: source, options: .forMoving, writing: destination, options: .forReplacing) { from, to in
            guard rename(from, to) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
            coordinator.itemMoved(from: from, to: to)
        }
    }

    static func append(_ text: String, to path: String, coordinator: FileCoordinator) throws {
        try coordinator.coordinate(writing: path, options: .forMerging) { path in
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data((text + "\n").utf8))
            try handle.close()
        }
    }

    /// A presenter that saves by appending a line, in its own coordinated write.
    final class LinePresenter: FilePresenter, @unchecked Sendable {
        // @unchecked: `registration` is set once, before any request can come.
        var registration: FilePresenterRegistration?

        func savePresentedItemChanges() throws {
            say("asked\n")
            guard let registration, registration.presentedItemPath.string.hasSuffix(".txt") else { return }
            try append("presenter", to: registration.presentedItemPath.string, coordinator: FileCoordinator(presenter: registration))
            say("saved\n")
        }
    }

    static func present(_ path: String) throws {
        let presenter = LinePresenter()
        let registration = try FilePresenterRegistration(presenting: path, presenter: presenter)
        presenter.registration = registration
        let events = registration.events
        Thread {
            let done = DispatchSemaphore(value: 0)
            Task {
                for await event in events {
                    switch event {
                    case .changed: say("changed\n")
                    case .moved(let path): say("moved \(path)\n")
                    case .deleted: say("deleted\n")
                    case .gainedVersion(let path, _): say("gained \(path)\n")
                    case .saveRequested: break
                    }
                }
                done.signal()
            }
            done.wait()
        }.start()
        say("ready\n")
        while readLine() != nil {}
        registration.remove()
    }
}
