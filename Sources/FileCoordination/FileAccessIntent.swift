import Dispatch
import SystemPackage
import SystemSupport

/// One item of an asynchronous coordination and how it is accessed, as
/// Apple's `NSFileAccessIntent`: `.readingIntent(with:options:)` or
/// `.writingIntent(with:options:)`.
public struct FileAccessIntent: Sendable {
    enum Kind: Sendable {
        case reading(FileReadingOptions)
        case writing(FileWritingOptions)
    }

    /// The item's path.
    public let path: FilePath
    let kind: Kind

    /// Reading the item at `path` (presenters asked to save first unless `options` says otherwise).
    public static func readingIntent(with path: FilePath, options: FileReadingOptions = []) -> FileAccessIntent {
        FileAccessIntent(path: path, kind: .reading(options))
    }

    /// Writing the item at `path` (presenters asked or told as `options` says).
    public static func writingIntent(with path: FilePath, options: FileWritingOptions = []) -> FileAccessIntent {
        FileAccessIntent(path: path, kind: .writing(options))
    }

    /// Reading the item named by the kit's text for a path (each byte that is not UTF-8 as U+10FF00 + byte).
    package static func readingIntent(with path: String, options: FileReadingOptions = []) -> FileAccessIntent {
        readingIntent(with: RawFileName.filePath(path), options: options)
    }

    /// Writing the item named by the kit's text for a path (each byte that is not UTF-8 as U+10FF00 + byte).
    package static func writingIntent(with path: String, options: FileWritingOptions = []) -> FileAccessIntent {
        writingIntent(with: RawFileName.filePath(path), options: options)
    }

    var claim: FileCoordinator.Claim {
        switch kind {
        case .reading(let options): FileCoordinator.Claim(reading: RawFileName.text(path), options)
        case .writing(let options): FileCoordinator.Claim(writing: RawFileName.text(path), options)
        }
    }
}

extension FileCoordinator {
    /// The meaning of Apple's `coordinate(with:queue:byAccessor:)`, as an
    /// `async` call: waits for every access of `intents` (in the one order
    /// every coordinator takes locks, so never a deadlock) on a thread of
    /// its own — never on the caller's, so the main actor goes on while
    /// another process holds the item — then runs `body` there with the
    /// paths, in the order of `intents` (as the kit's text for a path: each
    /// byte that is not UTF-8 as U+10FF00 + byte), and returns what it returns.
    ///
    /// `body` runs on that thread, outside any actor, with the accesses
    /// held: it reads or writes the files and returns what the caller needs
    /// (it must not suspend; hand the result back and act on it after).
    ///
    /// - Throws: `FileCoordinationError` when an access cannot be had
    ///   within `timeout` (`.timedOut`), the coordinator is cancelled, or a
    ///   presenter refused; or what `body` throws.
    public func coordinate<Result: Sendable>(
        with intents: [FileAccessIntent], timeout: Duration = defaultTimeout, _ body: @escaping @Sendable ([String]) throws -> Result
    ) async throws -> Result {
        let claims = intents.map(\.claim)
        let paths = intents.map { RawFileName.text($0.path) }
        return try await withCheckedThrowingContinuation { continuation in
            Self.waitingQueue.async {
                do {
                    let access = try self.begin(claims, timeout: timeout)
                    defer { access.release() }
                    continuation.resume(returning: try body(paths))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Where asynchronous coordinations wait: concurrent, off every actor.
    static let waitingQueue = DispatchQueue(label: "ICTKit coordination", attributes: .concurrent)
}
