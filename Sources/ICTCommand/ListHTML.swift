import ArgumentParser
import DocumentFormats
import ICTKitTooling

/// `ict list --html PAGE`: the documents as a contact sheet (`ContactSheet`) instead of the table.
extension Ict.List {
    static let htmlHelp = ArgumentHelp(
        "Write the documents as a contact sheet to this HTML file, instead of the table.",
        discussion: """
            One self-contained page, a grid of cards in the table's order: each document's \
            thumbnail, display name, kind, date (its package's modification time) and a mark \
            when conflict copies are beside it, read from the metadata entry alone. A document \
            whose metadata cannot be read is a card named from its file name, marked with the \
            problem (reported on standard error too; the exit status is 1). Nothing is printed \
            on standard output. The file is replaced only by a whole new page. The page loads \
            nothing from anywhere (its Content-Security-Policy forbids it) and shows every name \
            as text. Not with --json, --jsonl or --data. With --watch, the page is written \
            once the list is read and rewritten after each change, each time with PAGE.stamp.js \
            beside it: a page open in a browser checks that file every 2 seconds and reloads \
            itself only when the sheet was rewritten (no reload loop, nothing from the network); \
            the list and its changes are printed as without --html.
            """,
        valueName: "page.html")

    /// Refuses `--html` with the options whose output or reading it has no place for.
    static func checkHTMLOptions(htmlPage: String?, json: Bool, jsonl: Bool, data: Bool) throws {
        guard htmlPage != nil else { return }
        if json || jsonl { throw ValidationError("--html writes a page instead of the listing; it cannot be combined with --json or --jsonl") }
        if data { throw ValidationError("--html shows what the metadata holds; --data has no place on it") }
        if htmlPage?.isEmpty == true { throw ValidationError("--html needs the path of the page to write") }
    }

    /// Writes the contact sheet of `cards` at `path` (`ContactSheet.write(toPage:watching:)`),
    /// titled with the folder listed, or "Documents" for a list's.
    static func writeContactSheet(_ cards: [ContactSheet.Card], title: String?, to path: String, report: Report) throws {
        do throws(ICTDocumentError) {
            try ContactSheet(title: title ?? "Documents", cards: cards).write(toPage: path)
        } catch {
            throw report.fail(error.packageError.map { Problem(path: path, $0) } ?? Problem(path: path, error.message))
        }
    }
}
