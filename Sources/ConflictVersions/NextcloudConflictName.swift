/// The conflict copies of the Nextcloud and ownCloud desktop clients.
///
/// Source: nextcloud/desktop, `src/common/utility.cpp`,
/// `Utility::makeConflictFileName`: the tag `" (conflicted copy "`, then the
/// user name when known (its parentheses replaced by `_`) and a space, then
/// `dt.toString("yyyy-MM-dd hhmmss")` and `")"`, is inserted before the last
/// dot of the name — at the end when there is none or the dot starts the
/// name (`.hidden`). `Utility::isConflictFile` there also recognises the
/// "old pattern" `_conflict-` of earlier ownCloud clients, which inserted
/// `_conflict-yyyyMMdd-hhmmss` before the extension
/// (`conflictFileBaseNameFromPattern` strips both tags the same way).
enum NextcloudConflictName {
    static let tag = " (conflicted copy "
    static let oldTag = "_conflict-"

    /// The conflict name in `name` (either pattern), or nil.
    static func parse(_ name: String) -> ConflictName? {
        parseCurrent(name) ?? parseOld(name)
    }

    private static func parseCurrent(_ name: String) -> ConflictName? {
        guard let tagRange = ConflictNameText.lastRange(of: tag, in: name[...]) else { return nil }
        let stem = name[..<tagRange.lowerBound]
        guard !stem.isEmpty, let close = name[tagRange.upperBound...].firstIndex(of: ")") else { return nil }
        let inside = name[tagRange.upperBound..<close]
        let rest = name[name.index(after: close)...]
        // "[USER ]yyyy-MM-dd hhmmss": the date is the last 17 characters.
        let scalars = inside.unicodeScalars
        guard scalars.count >= 17, ConflictNameText.isExtension(rest) else { return nil }
        let dateText = Substring(scalars.suffix(17))
        guard let date = dashedDateTime(dateText) else { return nil }
        var device: String?
        if scalars.count > 17 {
            let user = scalars.dropLast(17)
            guard user.count > 1, user.last == " " else { return nil }
            device = String(Substring(user.dropLast()))
        }
        return ConflictName(originalName: String(stem) + rest, tool: .nextcloud, date: date, device: device)
    }

    private static func parseOld(_ name: String) -> ConflictName? {
        guard let tagRange = ConflictNameText.lastRange(of: oldTag, in: name[...]) else { return nil }
        let stem = name[..<tagRange.lowerBound]
        let afterTag = name[tagRange.upperBound...]
        guard !stem.isEmpty, let date = ConflictNameText.compactDateTime(afterTag) else { return nil }
        let rest = Substring(afterTag.unicodeScalars.dropFirst(15))
        guard ConflictNameText.isExtension(rest) else { return nil }
        return ConflictName(originalName: String(stem) + rest, tool: .nextcloud, date: date, device: nil)
    }

    /// `yyyy-MM-dd hhmmss`.
    private static func dashedDateTime(_ text: Substring) -> ConflictNameDate? {
        let s = text.unicodeScalars
        guard s.count == 17, s[s.index(s.startIndex, offsetBy: 4)] == "-", s[s.index(s.startIndex, offsetBy: 7)] == "-",
            s[s.index(s.startIndex, offsetBy: 10)] == " ",
            let year = ConflictNameText.digits(text, count: 4),
            let month = ConflictNameText.digits(text.dropFirst(5), count: 2),
            let day = ConflictNameText.digits(text.dropFirst(8), count: 2),
            let hour = ConflictNameText.digits(text.dropFirst(11), count: 2),
            let minute = ConflictNameText.digits(text.dropFirst(13), count: 2),
            let second = ConflictNameText.digits(text.dropFirst(15), count: 2)
        else { return nil }
        return ConflictNameDate(year: year, month: month, day: day, time: (hour, minute, second))
    }
}
