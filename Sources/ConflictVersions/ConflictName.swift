/// The sync tools whose conflict copies are recognised, each by the naming
/// scheme its own source or documentation gives (one file per scheme:
/// `SyncthingConflictName`, `NextcloudConflictName`, `DropboxConflictName`).
public enum SyncTool: String, Hashable, Sendable, CaseIterable {
    /// Syncthing: `NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.EXT`.
    case syncthing
    /// Nextcloud and ownCloud desktop clients: `NAME (conflicted copy
    /// [USER ]YYYY-MM-DD HHMMSS).EXT`, and the older `NAME_conflict-YYYYMMDD-HHMMSS.EXT`.
    case nextcloud
    /// Dropbox: `NAME (DEVICE's conflicted copy YYYY-MM-DD).EXT`.
    case dropbox

    /// The name to show: `Syncthing`, `Nextcloud/ownCloud`, `Dropbox`.
    public var displayName: String {
        switch self {
        case .syncthing: "Syncthing"
        case .nextcloud: "Nextcloud/ownCloud"
        case .dropbox: "Dropbox"
        }
    }
}

/// The date and time a sync tool wrote into a conflict copy's name, as
/// written: in the clock of the device that made the copy, with no time
/// zone, and for Dropbox without the time of day.
public struct ConflictNameDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The year, as written (four digits).
    public var year: Int
    /// The month, 1–12.
    public var month: Int
    /// The day of the month, 1–31.
    public var day: Int
    /// Hour, minute and second; nil when the name carries only the day (Dropbox).
    public var time: (hour: Int, minute: Int, second: Int)? {
        get { timeOfDay.map { ($0[0], $0[1], $0[2]) } }
        set { timeOfDay = newValue.map { [$0.hour, $0.minute, $0.second] } }
    }
    private var timeOfDay: [Int]?

    /// Makes a date; nil when a field is out of range (month 13, hour 24…).
    public init?(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)? = nil) {
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        if let time {
            guard (0...23).contains(time.hour), (0...59).contains(time.minute), (0...60).contains(time.second) else { return nil }
        }
        self.year = year
        self.month = month
        self.day = day
        self.time = time
    }

    /// `2026-11-23 10:15:00`, or `2026-11-23` without a time.
    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let day = "\(year)-\(two(month))-\(two(self.day))"
        guard let time else { return day }
        return "\(day) \(two(time.hour)):\(two(time.minute)):\(two(time.second))"
    }

    /// Earlier first; a day without a time comes before any time that day.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        [lhs.year, lhs.month, lhs.day] + (lhs.timeOfDay ?? [-1]) < [rhs.year, rhs.month, rhs.day] + (rhs.timeOfDay ?? [-1])
    }
}

private func < (lhs: [Int], rhs: [Int]) -> Bool { lhs.lexicographicallyPrecedes(rhs) }

/// What a conflict copy's name says: the name of the item it is a version
/// of, the tool that made it, when, and on which device.
public struct ConflictName: Hashable, Sendable {
    /// The name of the item this is a conflict copy of (`Friend.ict`).
    public var originalName: String
    /// The tool whose scheme the name follows.
    public var tool: SyncTool
    /// The date (and time) the name carries.
    public var date: ConflictNameDate
    /// The device (Syncthing's short device ID, Dropbox's computer name) or,
    /// for Nextcloud, the user named in the copy; nil when the name has none.
    public var device: String?

    /// Reads a file name as a conflict copy of any supported tool; nil when
    /// it is not one. Costs only the name: nothing is read from disk.
    public init?(parsing name: String) {
        guard let parsed = SyncthingConflictName.parse(name) ?? NextcloudConflictName.parse(name) ?? DropboxConflictName.parse(name) else {
            return nil
        }
        self = parsed
    }

    init(originalName: String, tool: SyncTool, date: ConflictNameDate, device: String?) {
        self.originalName = originalName
        self.tool = tool
        self.date = date
        self.device = device
    }
}

/// Small helpers the schemes share, on the name's Unicode scalars.
enum ConflictNameText {
    /// The number written by exactly `count` ASCII digits at the start of `text`.
    static func digits(_ text: Substring, count: Int) -> Int? {
        let prefix = text.unicodeScalars.prefix(count)
        guard prefix.count == count, prefix.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return Int(String(Substring(prefix)))
    }

    /// Whether `rest` can be what follows a tag inserted before the
    /// extension: nothing, or one extension (`.ict`, a dot and no other dot).
    static func isExtension(_ rest: Substring) -> Bool {
        rest.isEmpty || (rest.first == "." && rest.count > 1 && !rest.dropFirst().contains("."))
    }

    /// `YYYYMMDD-HHMMSS` at the start of `text`.
    static func compactDateTime(_ text: Substring) -> ConflictNameDate? {
        let scalars = Substring(text.unicodeScalars.prefix(15))
        guard scalars.unicodeScalars.count == 15, scalars.unicodeScalars.dropFirst(8).first == "-",
            let year = digits(scalars, count: 4),
            let month = digits(scalars.dropFirst(4), count: 2), let day = digits(scalars.dropFirst(6), count: 2),
            let hour = digits(scalars.dropFirst(9), count: 2), let minute = digits(scalars.dropFirst(11), count: 2),
            let second = digits(scalars.dropFirst(13), count: 2)
        else { return nil }
        return ConflictNameDate(year: year, month: month, day: day, time: (hour, minute, second))
    }
}

extension ConflictNameText {
    /// The last place `needle` occurs in `text` (compared by Unicode scalars).
    /// Searched by UTF-8 bytes, which is the same: a match of a whole UTF-8
    /// sequence starts with a lead byte, so at a scalar boundary, and ends
    /// at one. Every document name in a listing is tried against each
    /// scheme's tag, so this is on `ict list`'s path (bench row n1).
    static func lastRange(of needle: String, in text: Substring) -> Range<String.Index>? {
        // A bridged string is copied to be searched; offsets, not indices, come back.
        var contiguous = text
        contiguous.makeContiguousUTF8()
        let found: Int?? = contiguous.utf8.withContiguousStorageIfAvailable { haystack in
            var needle = needle
            return needle.withUTF8 { wanted in
                guard let first = wanted.first, wanted.count <= haystack.count else { return nil }
                var start = haystack.count - wanted.count
                while start >= 0 {
                    if haystack[start] == first, haystack[start..<start + wanted.count].elementsEqual(wanted) {
                        return start
                    }
                    start -= 1
                }
                return nil
            }
        }
        guard let offset = found ?? nil else { return nil }
        let start = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
        return start..<text.utf8.index(start, offsetBy: needle.utf8.count)
    }
}
