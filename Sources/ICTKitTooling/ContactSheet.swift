import DocumentFormats
import PackageFormat
import PropertyList
import SystemSupport
import UniformTypes

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A contact sheet of documents: one self-contained HTML5 page showing each
/// document as a card — its thumbnail, display name, kind, content change
/// date and a mark when sync tools left conflict copies of it — in the order
/// `ict list` lists them (`ict list --html`).
///
/// The page loads nothing: thumbnails are `data:` URLs, the style is inline,
/// the fonts are the system's, and its Content-Security-Policy forbids
/// everything else (`default-src 'none'`). Every text from a document or a
/// file name is escaped, so a display name such as `<img src=x onerror=…>`
/// is shown as text, never run. A page made for watching (`html(watching:generation:)`)
/// adds one inline script, allowed by its hash, that reloads the page when
/// the stamp file beside it (`stampPath(forPage:)`) names a newer generation.
///
/// The layout is fixed, so a card's place on the page can be computed:
/// cards of 200 × 300 CSS pixels in columns 216 pixels apart and rows 316
/// pixels apart, the first at (24, 64); each thumbnail drawn in the 176 × 176
/// pixels 12 pixels inside its card's top left corner.
package struct ContactSheet: Sendable {
    /// One document on the sheet.
    package struct Card: Hashable, Sendable {
        /// The document's path, as it was named or found.
        package var path: String
        /// The name to show: the metadata's display name, else the file name without its extension.
        package var displayName: String
        /// What kind of document it is, for people (`iCloudTest Document`).
        package var kind: String
        /// When the document's content last changed: its package's modification time
        /// (`NSMetadataItemFSContentChangeDateKey`); nil when it could not be read.
        package var contentChangeDate: Date?
        /// How many conflict copies of it are beside it; nil when its folder was not listed.
        package var conflictCount: Int?
        /// The thumbnail's PNG bytes; nil when there is none or it was not read.
        package var thumbnailPNG: [UInt8]?
        /// Why the thumbnail is not shown although the document has one (it is over the size limit, say).
        package var thumbnailNote: String?
        /// Why the document's metadata could not be read, saying where; nil for a readable document.
        package var problem: String?

        /// Makes a card from its parts.
        package init(
            path: String, displayName: String, kind: String, contentChangeDate: Date? = nil, conflictCount: Int? = nil,
            thumbnailPNG: [UInt8]? = nil, thumbnailNote: String? = nil, problem: String? = nil
        ) {
            self.path = path
            self.displayName = displayName
            self.kind = kind
            self.contentChangeDate = contentChangeDate
            self.conflictCount = conflictCount
            self.thumbnailPNG = thumbnailPNG
            self.thumbnailNote = thumbnailNote
            self.problem = problem
        }

        /// The card of the document at `location`, from its `summary` (read with
        /// `readingThumbnailUpTo:` for the thumbnail to show).
        ///
        /// Looks up the package's modification time (one `stat`) and the kind
        /// its file name's extension has in the type registry; reads nothing else.
        package init(location: DocumentLocation, summary: ICTDocumentSummary) {
            self.init(location: location, summary: summary, relativeTo: nil)
        }

        /// `init(location:summary:)`, where `directory` is the folder open as
        /// `location`'s the summary was read relative to (one `fstatat`), if any.
        package init(location: DocumentLocation, summary: ICTDocumentSummary, relativeTo directory: Int32?) {
            self.init(
                path: location.path, displayName: summary.displayName, kind: ContactSheet.kind(ofDocumentNamed: location.name),
                contentChangeDate: ContactSheet.contentChangeDate(of: location, relativeTo: directory),
                conflictCount: location.conflictCount, thumbnailPNG: summary.thumbnailPNG)
            if summary.thumbnailPNG == nil, let byteCount = summary.thumbnailByteCount {
                thumbnailNote = "thumbnail of \(byteCount) bytes not shown"
            }
        }

        /// The card of a document at `location` whose metadata could not be read:
        /// named from its file name, marked with `error` (which says where).
        /// Looks up the package's modification time (one `stat`).
        package init(location: DocumentLocation, unreadable error: ICTDocumentError) {
            self.init(location: location, unreadable: error, relativeTo: nil)
        }

        /// `init(location:unreadable:)`, where `directory` is the folder open as
        /// `location`'s, if any.
        package init(location: DocumentLocation, unreadable error: ICTDocumentError, relativeTo directory: Int32?) {
            self.init(
                path: location.path, displayName: ICTDocumentFile.fileDisplayName(ofPath: location.name),
                kind: ContactSheet.kind(ofDocumentNamed: location.name),
                contentChangeDate: ContactSheet.contentChangeDate(of: location, relativeTo: directory),
                conflictCount: location.conflictCount, problem: error.description)
        }
    }

    /// The cards, in `ict list`'s order (`areInListOrder(_:_:)`).
    package private(set) var cards: [Card]
    /// The page's title and heading (the folder listed, say).
    package var title: String

    /// A sheet of `cards`, put in `ict list`'s order: by display name regardless of case, then by path.
    package init(title: String, cards: [Card]) {
        self.title = title
        let keys = cards.map { $0.displayName.lowercased() }
        self.cards = cards.indices.sorted { Self.areInListOrder((keys[$0], cards[$0].path), (keys[$1], cards[$1].path)) }.map { cards[$0] }
    }

    /// `ict list`'s order of documents: by lower-cased display name, then by path.
    package static func areInListOrder(_ first: (lowercasedName: String, path: String), _ second: (lowercasedName: String, path: String)) -> Bool {
        (first.lowercasedName, first.path) < (second.lowercasedName, second.path)
    }

    /// The largest thumbnail a sheet shows, in bytes (8 MiB): pass it to
    /// `ICTDocumentSummary(ofDocumentAt:readingThumbnailUpTo:)`.
    package static let defaultThumbnailByteLimit = 8 << 20

    // MARK: The page

    /// The whole page, as UTF-8 text. With `watching`, it carries
    /// `generation` and the script that reloads it when the stamp file beside
    /// it holds a newer one (see `write(toPage:watching:)`).
    package func html(watching: Bool = false, generation: UInt64 = 0) -> String {
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        page += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(Self.contentSecurityPolicy(watching: watching))\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width\">\n<meta name=\"generator\" content=\"ICTKit\">\n"
        if watching { page += "<meta name=\"ict-generation\" content=\"\(generation)\">\n" }
        page += "<title>\(Self.escaped(title))</title>\n<style>\(Self.style)</style>\n"
        if watching { page += "<script>\(Self.reloadScript)</script>\n" }
        page += "</head>\n<body>\n<header><h1>\(Self.escaped(title))</h1>"
        let unreadable = cards.count(where: { $0.problem != nil })
        var count = cards.count == 1 ? "1 document" : "\(cards.count) documents"
        if unreadable > 0 { count += ", \(unreadable) unreadable" }
        page += "<p>\(count)</p></header>\n<main>\n"
        for card in cards { page += Self.html(of: card) }
        page += "</main>\n</body>\n</html>\n"
        return page
    }

    /// The page's policy: nothing loaded from anywhere but `data:` images and
    /// the inline style; when watching, the reload script (by its hash) and the
    /// stamp file beside the page (`'self'`, a local file).
    static func contentSecurityPolicy(watching: Bool) -> String {
        var policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
        if watching { policy += "; script-src 'self' '\(reloadScriptHash)'" }
        return policy
    }

    /// One card's `<article>`.
    private static func html(of card: Card) -> String {
        let conflicts = card.conflictCount ?? 0
        var classes = "card"
        if conflicts > 0 { classes += " conflicted" }
        if card.problem != nil { classes += " unreadable" }
        var html = "<article class=\"\(classes)\">\n<div class=\"thumb\">"
        if let png = card.thumbnailPNG {
            html += "<img src=\"data:image/png;base64,\(Data(png).base64EncodedString())\" width=\"176\" height=\"176\" alt=\"\">"
        } else {
            let note = card.problem != nil ? "metadata unreadable" : card.thumbnailNote ?? "no thumbnail"
            html += "<span>\(escaped(note))</span>"
        }
        html += "</div>\n"
        html += "<h2 class=\"name\" title=\"\(escaped(card.displayName))\">\(escaped(card.displayName))</h2>\n"
        html += "<p class=\"kind\">\(escaped(card.kind))</p>\n"
        if let date = card.contentChangeDate {
            let iso = PropertyListDateFormat.format(date)
            let shown = iso.replacing("T", with: " ").replacing("Z", with: " UTC")
            html += "<p class=\"date\"><time datetime=\"\(iso)\">\(shown)</time></p>\n"
        } else {
            html += "<p class=\"date\">date unknown</p>\n"
        }
        if conflicts > 0 {
            html += "<p class=\"conflict\">in conflict: \(conflicts == 1 ? "1 copy" : "\(conflicts) copies")</p>\n"
        }
        if let problem = card.problem {
            html += "<p class=\"problem\" title=\"\(escaped(problem))\">\(escaped(problem))</p>\n"
        }
        html += "<p class=\"path\" title=\"\(escaped(card.path))\">\(escaped(card.path))</p>\n</article>\n"
        return html
    }

    /// `text` safe anywhere in the page's text or a quoted attribute: control
    /// and reordering characters escaped as `ict` shows them on a terminal
    /// (`\u{202E}`), then `&`, `<`, `>`, `"` and `'` as character references.
    static func escaped(_ text: String) -> String {
        var result = ""
        for character in RawFileName.escaped(text).unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }

    /// The page's style: fixed sizes (see the type's description), system fonts only.
    static let style = """
        html{background:#eef0f3}\
        body{margin:0;color:#1f2328;font:13px/16px system-ui,-apple-system,"Segoe UI",sans-serif}\
        header{box-sizing:border-box;height:64px;padding:12px 24px;overflow:hidden}\
        h1{margin:0;font-size:20px;line-height:24px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}\
        header p{margin:2px 0 0;color:#59636e}\
        main{display:grid;grid-template-columns:repeat(auto-fill,200px);grid-auto-rows:300px;gap:16px;padding:0 24px 24px}\
        .card{box-sizing:border-box;width:200px;height:300px;padding:10px;border:2px solid #d1d9e0;border-radius:8px;\
        background:#fff;overflow:hidden}\
        .card.conflicted{border-color:#cf222e}\
        .card.unreadable{border-style:dashed;background:#fff8f8}\
        .thumb{width:176px;height:176px;display:flex;align-items:center;justify-content:center;background:#f6f8fa;\
        color:#59636e;text-align:center}\
        .thumb img{display:block;width:176px;height:176px;object-fit:contain}\
        .card p,.card h2{margin:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}\
        .name{margin-top:6px!important;font-size:15px;line-height:20px}\
        .kind,.date,.path{color:#59636e}\
        .path{font-size:11px}\
        .conflict{display:inline-block;margin:2px 0!important;padding:0 6px;border-radius:8px;background:#cf222e;color:#fff;\
        font-weight:600}\
        .problem{color:#cf222e}
        """

    // MARK: Watching

    /// The script of a page made for watching: every 2 seconds it loads the
    /// stamp file beside the page again (`PAGE.stamp.js?N`, so no cache
    /// answers) and reloads the page only when the stamp names a newer
    /// generation than the page's `ict-generation` — never for an older or the
    /// same one, so a page written before its stamp never reloads in a loop.
    /// Nothing in it varies from page to page: the policy allows it by its hash.
    static let reloadScript = """
        (function(){var built=Number(document.querySelector('meta[name="ict-generation"]').content);\
        var stamp=encodeURIComponent(decodeURIComponent(location.pathname.split("/").pop())+".stamp.js");var n=0;\
        setInterval(function(){var s=document.createElement("script");s.src=stamp+"?"+(++n);\
        s.onload=s.onerror=function(){s.remove();if(Number(window.ictStamp)>built){location.reload();}};\
        document.head.appendChild(s);},2000);})();
        """

    /// `reloadScript`'s SHA-256 as a policy source (`'sha256-BASE64'`), computed
    /// once with Python's `hashlib` when the script was written; change both
    /// together (`ContactSheetTests` checks the pair the same way).
    static let reloadScriptHash = "sha256-bMKf4v20U2Fo6zHF+Js0OPE1hUr+JpKaX9+rGQOdn9E="

    /// The stamp file of the page at `pagePath`: `PAGE.stamp.js` beside it.
    package static func stampPath(forPage pagePath: String) -> String {
        pagePath + ".stamp.js"
    }

    /// The stamp file's text for `generation`: `window.ictStamp = "GENERATION";`.
    package static func stampText(generation: UInt64) -> String {
        "window.ictStamp = \"\(generation)\";\n"
    }

    /// The generation last written by this process, so that each is greater than the one before.
    nonisolated(unsafe) private static var lastGeneration: UInt64 = 0
    private static let generationLock = ThreadLock()

    /// A new generation: the microseconds since 1970, or one more than the
    /// last generation made in this process if that is not less.
    static func nextGeneration() -> UInt64 {
        let now = UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
        return generationLock.withLock {
            lastGeneration = max(now, lastGeneration + 1)
            return lastGeneration
        }
    }

    /// Writes the page at `pagePath`, and with `watching` its stamp beside it
    /// (`stampPath(forPage:)`), each atomically: the page first, then the stamp
    /// naming its new generation, so a watching page that sees the new stamp
    /// reloads to the new page. An existing file is replaced only by a whole new
    /// one; when writing fails the old page (and stamp) are left as they were.
    /// Returns the generation written (0 without `watching`).
    ///
    /// - Throws: `ICTDocumentError` `.package`, its `packageError` an `.io`
    ///   one naming the file that could not be written.
    @discardableResult
    package func write(toPage pagePath: String, watching: Bool = false) throws(ICTDocumentError) -> UInt64 {
        let generation = watching ? Self.nextGeneration() : 0
        try Self.writeAtomically(html(watching: watching, generation: generation), to: pagePath)
        if watching { try Self.writeAtomically(Self.stampText(generation: generation), to: Self.stampPath(forPage: pagePath)) }
        return generation
    }

    private static func writeAtomically(_ text: String, to path: String) throws(ICTDocumentError) {
        do throws(AtomicFileWriter.Failure) {
            let writer = try AtomicFileWriter(path: path)
            let written: Result<Void, AtomicFileWriter.Failure> = Array(text.utf8).withUnsafeBytes { buffer in
                Result { () throws(AtomicFileWriter.Failure) in try writer.write(buffer) }
            }
            try written.get()
            try writer.commit()
        } catch {
            throw ICTDocumentError(DocumentPackageError(.io, fileSystemPathText: path, "cannot write the contact sheet: \(error.description)"))
        }
    }

    // MARK: Reading

    /// The kind of document a file named `name` is, for people: the
    /// description the type registry (ICTKit's types and the `.ict` type)
    /// gives its extension, else `EXT document`, else `document`.
    package static func kind(ofDocumentNamed name: String) -> String {
        let fileName = PathName.split(name).name
        guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return "document" }
        let fileExtension = String(fileName[fileName.index(after: dot)...])
        let declared = kindRegistry.declaredTypes(forTag: fileExtension, tagClass: .filenameExtension)
        return declared.lazy.compactMap(\.typeDescription).first ?? "\(fileExtension) document"
    }

    private static let kindRegistry: TypeRegistry = {
        var registry = TypeRegistry.builtIn
        registry.add(.ict)
        return registry
    }()

    /// The document's modification time (a package's folder's), following a link as `ict list` does; nil when it cannot be read.
    /// `directory` is the folder open as `location`'s, or nil (or the working directory's descriptor) to go by its path.
    package static func contentChangeDate(of location: DocumentLocation, relativeTo directory: Int32?) -> Date? {
        let info =
            if let directory, directory != CurrentDirectory.descriptor {
                try? FileInfo.of(location.name, in: directory)
            } else {
                try? FileInfo.of(path: location.path)
            }
        return info.map { Date(timeIntervalSince1970: Double($0.modificationSeconds) + Double($0.modificationNanoseconds) / 1e9) }
    }
}
