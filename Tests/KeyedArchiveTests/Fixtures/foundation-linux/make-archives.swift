// Writes this folder's keyed archives with swift-corelibs-foundation's NSKeyedArchiver (Apple's Foundation on
// Linux), one class each. Run from this folder: `swift make-archives.swift` (see SOURCES.md).
import Foundation

func write(_ name: String, _ object: Any) {
    let data = NSKeyedArchiver.archivedData(withRootObject: object)
    FileManager.default.createFile(atPath: name + ".plist", contents: data)
}

write("uuid", NSUUID(uuidString: "68753A44-4D6F-1226-9C60-0050E4C00067")!)
write("url-relative", NSURL(string: "docs/a%20b.txt?q=1", relativeTo: URL(string: "https://example.com/base/index.html"))!)
write("url-absolute", NSURL(string: "file:///tmp/x.ict")!)
write("value-range", NSValue(range: NSRange(location: 3, length: 7)))
write("value-point", NSValue(point: NSPoint(x: 1.5, y: -2)))
write("value-size", NSValue(size: NSSize(width: 640, height: 480)))
write("value-rect", NSValue(rect: NSRect(x: 0, y: 0, width: 10, height: 10)))
var components = DateComponents()
components.year = 2024
components.month = 2
components.day = 29
components.hour = 13
write("date-components", components as NSDateComponents)
write("null", NSNull())
write("ordered-set", NSOrderedSet(array: ["b", "a", "c"]))
write("index-set-one", NSIndexSet(indexesIn: NSRange(location: 5, length: 3)))
let indexes = NSMutableIndexSet()
indexes.add(in: NSRange(location: 1, length: 2))
indexes.add(in: NSRange(location: 10, length: 1))
indexes.add(in: NSRange(location: 300, length: 5))
write("index-set-many", indexes)
write("mutable-data", NSMutableData(bytes: [0xDE, 0xAD, 0xBE, 0xEF] as [UInt8], length: 4))
write("locale", NSLocale(localeIdentifier: "fr_CA"))
write("time-zone", NSTimeZone(name: "Europe/Paris")!)
let text = NSMutableAttributedString(string: "Hello, wörld")
text.addAttribute(NSAttributedString.Key("NSLink"), value: "https://example.com", range: NSRange(location: 0, length: 5))
text.addAttribute(NSAttributedString.Key("Weight"), value: NSNumber(value: 7), range: NSRange(location: 7, length: 5))
write("attributed-string", text)
write("attributed-string-plain", NSAttributedString(string: "plain"))
// NSError is not here: archiving one with swift-corelibs-foundation 6.3.1 crashes (a segmentation fault when run as
// `swift make-archives.swift`), so NSError is tested with hand-built archives in Apple's keys.
