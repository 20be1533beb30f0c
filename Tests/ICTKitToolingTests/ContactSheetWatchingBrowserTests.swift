import DocumentFormats
import Foundation
import TestSupport
import Testing

@testable import ICTKitTooling

/// A page written for watching, in headless chromium: its script runs under
/// the page's policy (allowed by its hash, the stamp allowed as `'self'`),
/// and polls the stamp without reloading while the stamp names the page's own
/// generation or an older one (no reload loop when the page is written before
/// its stamp).
///
/// Each stamp the page loads logs its URL (`stamp.js?N`, N counting the
/// page's polls from 1): a page that never reloads logs ?1, ?2. The browser
/// runs on virtual time (5 s), so the polls every 2 s take no real waiting.
/// (A stamp newer than the page makes it reload — ?1 again — for as long as
/// the page on disk is not the newer one, which headless `--dump-dom` never
/// ends on virtual time: that case was checked by hand, not here.)
@Suite(.externalTools(["/usr/bin/chromium"]))
struct ContactSheetWatchingBrowserTests {
    /// Writes a watching page, then its stamp naming `stampGeneration(generation)`
    /// with a line that logs each load, and returns chromium's log of loading it.
    static func browse(stampGeneration: (UInt64) -> UInt64) throws -> String {
        let folder = try ScratchFolder()
        let page = folder.path + "/sheet.html"
        let card = ContactSheet.Card(path: "a.ict", displayName: "A", kind: "iCloudTest Document")
        let generation = try ContactSheet(title: "watching", cards: [card]).write(toPage: page, watching: true)
        let stamp = ContactSheet.stampText(generation: stampGeneration(generation)) + "console.log(\"stamp \" + window.ictStamp);\n"
        try Data(stamp.utf8).write(to: URL(fileURLWithPath: ContactSheet.stampPath(forPage: page)))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chromium")
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(folder.path)/profile",
            "--no-first-run", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom",
            URL(fileURLWithPath: page).absoluteString,
        ]
        let log = folder.path + "/log"
        FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        // A bound on the wait, not a measure: chromium is killed if it hangs.
        if exited.wait(timeout: .now() + 120) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("chromium did not finish within two minutes")
        }
        process.waitUntilExit()
        return try String(contentsOfFile: log, encoding: .utf8)
    }

    /// How many times the log shows the page's `n`th poll of its stamp.
    static func polls(_ n: Int, in log: String) -> Int {
        log.components(separatedBy: "sheet.html.stamp.js?\(n) ").count - 1
    }

    @Test func pollsWithoutReloadingWhileTheStampIsItsOwn() throws {
        let log = try Self.browse { $0 }
        #expect(!log.contains("Content Security Policy"), "\(log)")
        #expect(Self.polls(1, in: log) == 1, "\(log)")
        #expect(Self.polls(2, in: log) == 1, "\(log)")
    }

    @Test func neverReloadsForAnOlderStamp() throws {
        let log = try Self.browse { $0 - 1 }
        #expect(Self.polls(1, in: log) == 1, "\(log)")
        #expect(Self.polls(2, in: log) == 1, "\(log)")
    }
}
