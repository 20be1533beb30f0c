/// Why a command could not do something, when no library error says it: the
/// message, and the file it concerns as the user named it when there is one.
/// The command's one failure type (a library's errors are turned into a
/// `Problem` where they are caught).
package struct CommandFailure: Error, CustomStringConvertible {
    /// The file concerned as the user named it; nil when the message stands
    /// alone or the catcher knows the file.
    package var path: String?
    package var message: String
    /// The file in place is not the one that was read: another program
    /// replaced or rewrote it, and it was left as that program left it.
    package var changedSinceRead = false

    package init(path: String? = nil, _ message: String, changedSinceRead: Bool = false) {
        self.path = path
        self.message = message
        self.changedSinceRead = changedSinceRead
    }

    package var description: String { message }

    /// The failure as the command reports it, at its file (the command itself, `ict`, when it has none).
    package var problem: Problem { Problem(path: path ?? "ict", message) }

    /// An output not written because the file changed since it was read.
    package static let changed = CommandFailure(
        "the file changed since it was read (another program wrote it); nothing was saved, run the command again",
        changedSinceRead: true)
}
