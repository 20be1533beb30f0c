import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Messages between the coordinated writers of an item and the processes
/// that present it, through named pipes in the lock directory (never in the
/// item's folder, which is synced).
///
/// Each presenter of an item owns a FIFO in the item's presenter folder,
/// `<lock directory>/<lock name>.presenters/p-<pid>-<n>`, held open for
/// reading and writing for as long as it presents the item; a writer lists
/// that folder and writes each message in one `write(2)` (at most `PIPE_BUF`
/// bytes, so messages from several writers never interleave). A FIFO nobody
/// has open any more (its process died) refuses a non-blocking open with
/// `ENXIO`, and the writer that finds it removes it. A request that needs an
/// answer names a reply FIFO of the asker's in the same folder. The folder
/// goes with its last FIFO.
package enum PresenterChannel {
    /// What a message says.
    package enum Kind: UInt8, Sendable {
        /// Save your unsaved changes now (answered).
        case save = 1
        /// The item is about to be deleted: let go of it (answered).
        case accommodateDeletion = 2
        /// A coordinated writer changed the item.
        case changed = 3
        /// A coordinated writer moved the item to the path in the argument.
        case moved = 4
        /// The answer to a request: empty argument for done, else why not.
        case reply = 5
        /// Tells a presenter's own reader to stop.
        case stop = 6
    }

    /// One message: its kind, the sender's presenter id (empty for none),
    /// the reply FIFO's name (requests only) and an argument.
    package struct Message: Sendable, Equatable {
        package var kind: Kind
        package var sender: String
        package var replyName: String
        package var argument: String

        package init(_ kind: Kind, sender: String = "", replyName: String = "", argument: String = "") {
            self.kind = kind
            self.sender = sender
            self.replyName = replyName
            self.argument = argument
        }

        /// `kind`, then three NUL-terminated fields, after a two-byte length.
        var encoded: [UInt8]? {
            var body: [UInt8] = [kind.rawValue]
            for field in [sender, replyName, argument] {
                body += Array(field.utf8)
                body.append(0)
            }
            guard body.count + 2 <= Int(PIPE_BUF) else { return nil }
            return [UInt8(body.count >> 8), UInt8(body.count & 0xff)] + body
        }

        /// Splits whole messages off the front of `buffer`; skips what cannot be one.
        static func decode(_ buffer: inout [UInt8]) -> [Message] {
            var messages: [Message] = []
            var start = 0
            while buffer.count - start >= 2 {
                let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
                guard buffer.count - start - 2 >= length else { break }
                let body = buffer[(start + 2)..<(start + 2 + length)]
                start += 2 + length
                guard let first = body.first, let kind = Kind(rawValue: first) else { continue }
                let fields = body.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map {
                    String(decoding: $0, as: UTF8.self)
                }
                guard fields.count == 4 else { continue }
                messages.append(Message(kind, sender: fields[0], replyName: fields[1], argument: fields[2]))
            }
            buffer.removeFirst(start)
            return messages
        }
    }

    /// Why the presenter folder of an item cannot be used.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) { self.description = description }
    }

    /// The folder of the presenters of the item at `path` (made when `create`).
    package static func folder(of path: String, create: Bool) throws(Failure) -> String {
        let name: String
        let directory: String
        do throws(ItemLock.Failure) {
            name = try ItemLock.Key(path: path).fileName
            directory = try ItemLock.lockDirectory()
        } catch {
            throw Failure(description: error.description)
        }
        let folder = directory + "/" + name + ".presenters"
        if create, mkdir(folder, 0o1777) == 0 {
            _ = chmod(folder, 0o1777)
        } else if create, errno != EEXIST {
            throw Failure(description: "cannot make the presenter folder \(folder): \(String(cString: strerror(errno)))")
        }
        return folder
    }

    /// This process's id and a counter: a name no other live FIFO has.
    package static func uniqueName(_ prefix: String) -> String {
        "\(prefix)-\(getpid())-\(Counter.shared.next())"
    }

    /// Sends `message` to every presenter in `folder` (`folder(of:create:)`) but `excluding`.
    /// Returns how many it reached. Costs one listing of a folder in the lock directory.
    @discardableResult
    package static func post(_ message: Message, toPresentersIn folder: String, excluding: String = "") -> Int {
        guard let bytes = message.encoded else { return 0 }
        var reached = 0
        for name in presenterNames(in: folder) where name != excluding {
            if send(bytes, to: folder + "/" + name, removingWhenDead: true) { reached += 1 }
        }
        return reached
    }

    /// Tells the presenters of the item at `path` that it changed (a save by
    /// a lower layer that holds the item's `ItemLock` but no coordinated
    /// write, which would tell them itself). Best effort: an item whose
    /// presenter folder cannot be found has no presenters to tell.
    /// Returns how many it reached.
    @discardableResult
    package static func postChange(ofItemAt path: String) -> Int {
        guard let folder = try? folder(of: path, create: false) else { return 0 }
        return post(Message(.changed), toPresentersIn: folder)
    }

    /// Sends a request to every presenter in `folder` but `excluding` and waits
    /// for their answers until `deadline` (a `monotonicNow()` value) or until
    /// `isCancelled()`. Returns the answers that were not "done" and how many
    /// presenters did not answer.
    package static func ask(
        _ kind: Kind, presentersIn folder: String, excluding: String, deadline: Double, isCancelled: () -> Bool
    ) throws(Failure) -> (refusals: [String], unanswered: Int) {
        let names = presenterNames(in: folder).filter { $0 != excluding }
        guard !names.isEmpty else { return ([], 0) }
        let replyName = uniqueName("r")
        let reply: Inbox
        do throws(Failure) {
            reply = try Inbox(folder: folder, name: replyName)
        } catch {
            // The folder went with its last presenter since it was listed: no one to ask.
            if access(folder, F_OK) != 0, errno == ENOENT { return ([], 0) }
            throw error
        }
        defer { reply.close() }
        guard let bytes = Message(kind, sender: excluding, replyName: replyName).encoded else { return ([], 0) }
        var expected = 0
        for name in names where send(bytes, to: folder + "/" + name, removingWhenDead: true) { expected += 1 }
        var refusals: [String] = []
        var answered = 0
        while answered < expected, !isCancelled() {
            let remaining = deadline - monotonicNow()
            guard remaining > 0 else { break }
            guard waitForInput([reply.descriptor], timeout: min(remaining, 0.05)).first == true else { continue }
            for message in reply.receive() where message.kind == .reply {
                answered += 1
                if !message.argument.isEmpty { refusals.append(message.argument) }
            }
        }
        return (refusals, expected - answered)
    }

    /// Sends `message` to the one presenter FIFO `name` in `folder`.
    package static func send(_ message: Message, toPresenter name: String, in folder: String) {
        guard let bytes = message.encoded else { return }
        _ = send(bytes, to: folder + "/" + name, removingWhenDead: false)
    }

    /// Answers a request: `refusal` empty for done.
    package static func answer(_ request: Message, inFolder folder: String, refusal: String) {
        guard !request.replyName.isEmpty, !request.replyName.contains("/"),
            let bytes = Message(.reply, argument: refusal).encoded
        else { return }
        // A reply FIFO nobody reads is an asker's that died: removed.
        _ = send(bytes, to: folder + "/" + request.replyName, removingWhenDead: true)
    }

    /// Names of presenter FIFOs in `folder`.
    private static func presenterNames(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasPrefix("p-") { names.append(name) }
        }
        return names
    }

    /// Writes `bytes` to the FIFO at `path` without blocking; removes a FIFO nobody reads when asked.
    private static func send(_ bytes: [UInt8], to path: String, removingWhenDead: Bool) -> Bool {
        let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENXIO, removingWhenDead, unlink(path) == 0, case let folder = PathName.folder(of: path), folder != "." {
                // Its folder goes with its last FIFO.
                RawFileName.withPath(folder) { _ = rmdir($0) }
            }
            return false
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFIFO else { return false }
        return bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }

    /// A FIFO this process reads: a presenter's, or a request's reply.
    package final class Inbox {
        /// The descriptor to wait on (`waitForInput`).
        package let descriptor: Int32
        /// Its folder and its name there.
        package let folder: String
        package let name: String
        private var buffer: [UInt8] = []
        private var closed = false

        /// Makes the FIFO `name` in `folder` and opens it, under a temporary
        /// name first so no writer finds it before it is open.
        package init(folder: String, name: String) throws(Failure) {
            self.folder = folder
            self.name = name
            let temporary = folder + "/t-" + name
            guard mkfifo(temporary, 0o600) == 0 else {
                throw Failure(description: "cannot make a FIFO in \(folder): \(String(cString: strerror(errno)))")
            }
            descriptor = open(temporary, O_RDWR | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0, rename(temporary, folder + "/" + name) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw Failure(description: "cannot open a FIFO in \(folder): \(reason)")
            }
        }

        deinit { close() }

        /// The whole messages waiting now (none when nothing is there).
        package func receive() -> [Message] {
            var chunk = [UInt8](repeating: 0, count: Int(PIPE_BUF))
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                buffer += chunk[..<count]
            }
            return Message.decode(&buffer)
        }

        /// Puts `message` in this inbox itself (to wake its reader).
        package func deliver(_ message: Message) {
            guard let bytes = message.encoded else { return }
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }

        /// Removes the FIFO and closes it; once only.
        package func close() {
            guard !closed else { return }
            closed = true
            unlink(folder + "/" + name)
            closeDescriptor(descriptor)
            // The folder goes with its last FIFO (fails while others are there): nothing is left behind.
            rmdir(folder)
        }
    }

    /// Process-wide counter for unique FIFO names.
    private final class Counter: @unchecked Sendable {
        // @unchecked: `value` is only touched under `lock`.
        static let shared = Counter()
        private let lock = ThreadLock()
        private var value = 0
        func next() -> Int {
            lock.withLock {
                value += 1
                return value
            }
        }
    }
}

/// `close(2)`, for types with a `close` method of their own.
func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// Seconds on the monotonic clock.
package func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Waits up to `timeout` seconds until one of `descriptors` can be read;
/// says which can. The corresponding C function is `poll`.
package func waitForInput(_ descriptors: [Int32], timeout: Double) -> [Bool] {
    var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let milliseconds = timeout < 0 ? -1 : Int32(min(timeout * 1000, Double(Int32.max)).rounded(.up))
    let count = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), milliseconds) }
    guard count > 0 else { return descriptors.map { _ in false } }
    return entries.map { $0.revents & Int16(POLLIN | POLLHUP) != 0 }
}

extension ItemLock {
    /// The name of the lock file of the item at `path`: two paths of one
    /// item have the same name, so locks on several items can be taken in
    /// one order by everyone (no deadlock).
    ///
    /// - Throws: `Failure` when the item's folder cannot be found.
    package static func lockName(of path: String) throws(Failure) -> String {
        try Key(path: path).fileName
    }
}
