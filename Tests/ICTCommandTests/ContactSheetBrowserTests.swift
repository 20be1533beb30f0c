import Foundation
import TestSupport
import Testing

/// Issue 23, acceptance 4: `ict list --html`'s page opened in a real
/// headless browser (Debian's `chromium`, which `scripts/install-deps.sh test`
/// installs): the screenshot shows each sample's thumbnail where its card is
/// (ImageMagick measures both), the hostile name is text in the browser's DOM,
/// and the browser's network log holds no request.
///
/// The page's layout is fixed (`ContactSheet`'s description): cards 200 × 300
/// CSS pixels, 216 apart across and 316 down, the first at (24, 64); each
/// thumbnail in the 176 × 176 pixels 12 inside its card's corner; in a
/// 960-pixel-wide window, four columns. The page's background is #EEF0F3.
@Suite(.externalTools([BrowserTools.chromium, BrowserTools.convert]))
struct ContactSheetBrowserTests {
    static let chromium = BrowserTools.chromium
    static let convert = BrowserTools.convert
    static let sampleDocs = Repository.path("SampleDocs")
    static let samples = ["Astronaut", "Cameraman", "Chelsea", "Coffee", "Hubble Deep Field", "Rocket"]
    static let hostileName = "<img src=x onerror=document.title=\"pwned\">"
    /// The file name of a document whose metadata cannot be read (a copy of `malformed/unknown-version.ict`).
    static let hostileFileName = "<img src=y onerror=document.title=1>"
    static let window = (width: 960, height: 760)
    /// How far apart the columns' and rows' cards are, and the first card's corner.
    static let pitch = (x: 216, y: 316)
    static let origin = (x: 24, y: 64)

    /// A folder with copies of the six samples, one with the hostile display
    /// name (a copy of Coffee), one unreadable with a hostile file name, and a
    /// Syncthing conflict copy of Rocket.
    static func makeFolder() throws -> String {
        let folder = try ScratchFolder.make("sheet").path
        for sample in samples {
            try FileManager.default.copyItem(atPath: "\(sampleDocs)/\(sample).ict", toPath: "\(folder)/\(sample).ict")
        }
        try FileManager.default.copyItem(atPath: "\(sampleDocs)/Coffee.ict", toPath: "\(folder)/Hostile.ict")
        let set = try ICTRunner.run(["set", "\(folder)/Hostile.ict", "--display-name", hostileName])
        #expect(set.status == 0, "\(set.stderr)")
        try FileManager.default.copyItem(
            atPath: "\(sampleDocs)/malformed/unknown-version.ict", toPath: "\(folder)/\(hostileFileName).ict")
        try FileManager.default.copyItem(
            atPath: "\(sampleDocs)/Rocket.ict", toPath: "\(folder)/Rocket.sync-conflict-20261124-093015-ABCDEFG.ict")
        return folder
    }

    /// Runs chromium headless on `url` with `arguments`, in a profile of its own, for at most two minutes.
    static func browse(_ url: URL, _ arguments: [String], profile: String) throws -> ProgramRun {
        let run = try ProgramRunner.run(
            chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=\(profile)",
                "--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--hide-scrollbars", "--force-device-scale-factor=1", "--force-color-profile=srgb",
            ] + arguments + [url.absoluteString],
            timeLimit: .seconds(120))
        #expect(!run.timedOut, "chromium did not finish within two minutes")
        #expect(run.status == 0, "\(run.stderr)")
        return run
    }

    /// ImageMagick's `-format` of `file` after `operations`.
    static func magick(_ file: String, _ operations: [String], format: String) throws -> String {
        let run = try ProgramRunner.run(convert, [file] + operations + ["-format", format, "info:"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    /// The mean colour of `file` (a region of it with `crop`), as 0–255 channels: `-scale 1x1!` averages every pixel.
    static func meanColour(_ file: String, crop: String? = nil) throws -> [Int] {
        let operations = (crop.map { ["-crop", $0, "+repage"] } ?? []) + ["-scale", "1x1!"]
        let text = try magick(file, operations, format: "%[fx:int(255*r+.5)],%[fx:int(255*g+.5)],%[fx:int(255*b+.5)]")
        return text.split(separator: ",").compactMap { Int($0) }
    }

    /// The URLs of the requests a `file://` page made, from chromium's network log: its
    /// `URL_REQUEST_START_JOB` events whose network isolation key is a `file://` one. (The
    /// browser's own requests — component updates, its clock, accounts — are logged too, under
    /// other keys, whatever flags turn them off; they are not the page's.)
    static func pageRequests(inNetLog path: String) throws -> [String] {
        let log = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let types = try #require((log["constants"] as? [String: Any])?["logEventTypes"] as? [String: Int])
        let startJob = try #require(types["URL_REQUEST_START_JOB"])
        let events = try #require(log["events"] as? [[String: Any]])
        return events.compactMap { event in
            guard event["type"] as? Int == startJob, let parameters = event["params"] as? [String: Any],
                (parameters["network_isolation_key"] as? String)?.hasPrefix("file://") == true
            else { return nil }
            return parameters["url"] as? String
        }
    }

    @Test func theSheetShowsTheThumbnailsAndTheHostileNamesAsTextAndLoadsNothing() throws {
        let folder = try Self.makeFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let scratch = folder + ".out"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let page = "\(scratch)/sheet.html"

        // The unreadable document is reported and makes the exit status 1, as for `ict list`; nothing on standard output.
        let list = try ICTRunner.run(["list", "--html", page, folder])
        #expect(list.status == 1)
        #expect(list.stdout == "")
        #expect(list.stderr.contains("\(folder)/\(Self.hostileFileName).ict"))
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"))

        // The order `ict list --json` gives the readable documents (display names), after the two hostile
        // names, which begin with "<" and so come first ("<img src=x" before "<img src=y").
        let listing = try ICTRunner.run(["list", "--json", folder])
        let documents = try #require(
            (try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any])?["documents"] as? [[String: Any]])
        let readable = documents.compactMap { $0["path"] as? String }.map { ($0 as NSString).lastPathComponent }
        #expect(readable.first == "Hostile.ict")
        let order = ["Hostile.ict", "\(Self.hostileFileName).ict"] + readable.dropFirst()
        #expect(order.count == 8)

        // Each thumbnail's own mean colour, from the stored PNG `ict convert` exports.
        var expected: [String: [Int]] = [:]
        for name in order where name != "\(Self.hostileFileName).ict" {
            let base = "\(scratch)/\(name)"
            let export = try ICTRunner.run(["convert", "\(folder)/\(name)", "--format", "json", "-o", base + ".json"])
            #expect(export.status == 0, "\(export.stderr)")
            expected[name] = try Self.meanColour(base + ".thumbnail.png")
        }

        // The screenshot, with the network log of the same load.
        let screenshot = "\(scratch)/sheet.png"
        let netLog = "\(scratch)/net.json"
        _ = try Self.browse(
            URL(fileURLWithPath: page),
            ["--screenshot=\(screenshot)", "--window-size=\(Self.window.width),\(Self.window.height)", "--log-net-log=\(netLog)"],
            profile: "\(scratch)/profile-1")
        #expect(try Self.magick(screenshot, [], format: "%w×%h") == "\(Self.window.width)×\(Self.window.height)")

        // Where each card's thumbnail is drawn, its own colours: the region's mean within 4 of 255 of the
        // thumbnail's in each channel, and nearer to it than to any other sample's.
        for (index, name) in order.enumerated() {
            guard let colour = expected[name] else { continue }
            let x = Self.origin.x + (index % 4) * Self.pitch.x + 12
            let y = Self.origin.y + (index / 4) * Self.pitch.y + 12
            let drawn = try Self.meanColour(screenshot, crop: "176x176+\(x)+\(y)")
            let distance = { (other: [Int]) in zip(drawn, other).map { abs($0 - $1) }.max() ?? .max }
            #expect(distance(colour) <= 4, "\(name) at (\(x), \(y)): drawn \(drawn), its thumbnail \(colour)")
            let nearest = expected.filter { $0.value != colour }.values.map(distance).min() ?? .max
            #expect(distance(colour) < nearest, "\(name): another thumbnail's colours are as near")
        }

        // Between and around the cards, only the page's background, #EEF0F3 (by hand, from its style).
        let background = [
            "20x580+0+70",  // left of the first column
            "12x580+226+70",  // between the first two columns (x 224–239)
            "848x12+24+366",  // between the two rows (y 364–379)
            "80x580+876+70",  // right of the fourth column (x 872 on)
            "960x50+0+705",  // below the second row (y 696 on)
        ]
        for region in background {
            #expect(try Self.magick(screenshot, ["-crop", region, "+repage"], format: "%k %[hex:p{0,0}]").hasPrefix("1 EEF0F3"), "\(region)")
        }

        // The network log: no request for the page — and for a page that asks for one, that request is there.
        #expect(try Self.pageRequests(inNetLog: netLog) == [])
        let bait = "\(scratch)/bait.html"
        try Data("<!DOCTYPE html><img src=\"http://127.0.0.1:9/bait.png\">".utf8).write(to: URL(fileURLWithPath: bait))
        _ = try Self.browse(URL(fileURLWithPath: bait), ["--dump-dom", "--log-net-log=\(scratch)/bait.json"], profile: "\(scratch)/profile-2")
        #expect(try Self.pageRequests(inNetLog: "\(scratch)/bait.json") == ["http://127.0.0.1:9/bait.png"])

        // The DOM after loading: the hostile names as text, no element made from them, the title as written.
        let dom = try Self.browse(URL(fileURLWithPath: page), ["--dump-dom"], profile: "\(scratch)/profile-3").stdout
        #expect(dom.contains(">&lt;img src=x onerror=document.title=\"pwned\"&gt;</h2>"))
        #expect(dom.contains(">&lt;img src=y onerror=document.title=1&gt;</h2>"))
        #expect(dom.components(separatedBy: "<img").count - 1 == 7)
        #expect(dom.components(separatedBy: "<img src=\"data:image/png;base64,").count - 1 == 7)
        #expect(dom.contains("<title>\(folder)</title>"))
        #expect(!dom.contains("pwned</title>") && !dom.contains("<title>1</title>"))
        // Rocket's conflict copy marks its card; the unreadable document's card says so.
        #expect(dom.contains("<p class=\"conflict\">in conflict: 1 copy</p>"))
        #expect(dom.contains("metadata unreadable"))
    }
}

/// The programs the browser test runs, by full path.
enum BrowserTools {
    /// Debian's chromium (its wrapper script).
    static let chromium = "/usr/bin/chromium"
    /// Debian's ImageMagick: a `convert` earlier on PATH may be a stand-in.
    static let convert = "/usr/bin/convert"
}
