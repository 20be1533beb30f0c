/// Dropbox's conflict copies.
///
/// Source: Dropbox Help Center, "What's a conflicted copy?"
/// (help.dropbox.com/syncing-uploads/conflicted-copy): the editor's name (the
/// person's or computer's), "conflicted copy" and the date are added to the
/// file name. The page gives no exact layout; the one read here,
/// `NAME (DEVICE's conflicted copy YYYY-MM-DD).EXT`, is the one Dropbox
/// clients are seen to write, and a numbered ` (1)`, ` (2)`… before the
/// closing parenthesis (a second copy the same day) is accepted too.
enum DropboxConflictName {
    static let marker = "'s conflicted copy "

    /// The conflict name in `name`, or nil.
    static func parse(_ name: String) -> ConflictName? {
        guard let markerRange = ConflictNameText.lastRange(of: marker, in: name[...]),
            let open = ConflictNameText.lastRange(of: " (", in: name[..<markerRange.lowerBound])
        else { return nil }
        let stem = name[..<open.lowerBound]
        let device = name[open.upperBound..<markerRange.lowerBound]
        let afterMarker = name[markerRange.upperBound...]
        guard !stem.isEmpty, !device.isEmpty, let date = dashedDate(afterMarker) else { return nil }
        var rest = Substring(afterMarker.unicodeScalars.dropFirst(10))
        // An optional " (N)" for the second and later copies of a day.
        if rest.hasPrefix(" ("), let close = rest.firstIndex(of: ")") {
            let number = rest[rest.index(rest.startIndex, offsetBy: 2)..<close]
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            rest = rest[rest.index(after: close)...]
        }
        guard rest.first == ")" else { return nil }
        rest = rest.dropFirst()
        guard ConflictNameText.isExtension(rest) else { return nil }
        return ConflictName(originalName: String(stem) + rest, tool: .dropbox, date: date, device: String(device))
    }

    /// `YYYY-MM-DD`.
    private static func dashedDate(_ text: Substring) -> ConflictNameDate? {
        let s = text.unicodeScalars
        guard s.count >= 10, s[s.index(s.startIndex, offsetBy: 4)] == "-", s[s.index(s.startIndex, offsetBy: 7)] == "-",
            let year = ConflictNameText.digits(text, count: 4),
            let month = ConflictNameText.digits(text.dropFirst(5), count: 2),
            let day = ConflictNameText.digits(text.dropFirst(8), count: 2)
        else { return nil }
        return ConflictNameDate(year: year, month: month, day: day)
    }
}
