import SystemSupport

/// Text from files and the file system as `ict` shows it to people
/// (`RawFileName.escaped(_:everyRawByte:)` says how): control characters
/// escaped, a path's bytes that are not UTF-8 printed as they are but for
/// 0x80…0x9F; `--json` output is the exact form, and is never escaped.
package enum TerminalText {
    /// `text` with its control characters escaped.
    package static func escaped(_ text: String) -> String {
        RawFileName.escaped(text, everyRawByte: false)
    }
}
