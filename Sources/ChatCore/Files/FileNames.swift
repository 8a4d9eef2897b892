import Foundation

/// Names and places of received files. A sender chooses the name in its invitation; it is cut
/// to one safe path component here, so no name can point outside the files folder.
enum FileNames {
    /// simplex-chat's `makeValid . takeFileName` and more: the last path component only (either
    /// separator), no control characters, no leading dots or spaces, at most 255 bytes; "_"
    /// when nothing is left (as `makeValid ""`).
    static func sanitized(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let kept = last.unicodeScalars.filter { s in
            !(s.value < 0x20 || s.value == 0x7F || (0x80...0x9F).contains(s.value) || s.properties.generalCategory == .format
              || s.properties.generalCategory == .lineSeparator || s.properties.generalCategory == .paragraphSeparator)
        }
        var s = String(String.UnicodeScalarView(kept))
        while s.hasPrefix(".") || s.hasPrefix(" ") { s.removeFirst() }
        while s.hasSuffix(" ") { s.removeLast() }
        if s.utf8.count > 255 {
            var cut = ""
            for ch in s {
                if cut.utf8.count + ch.utf8.count > 255 { break }
                cut.append(ch)
            }
            s = cut
        }
        return s.isEmpty ? "_" : s
    }

    /// `name` in `folder`, or `base_1.ext`, `base_2.ext`... when taken (`uniqueCombine`).
    static func unique(in folder: String, _ name: String) -> String {
        let base = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        var n = 0
        while true {
            let candidate = n == 0 ? name : (ext.isEmpty ? "\(base)_\(n)" : "\(base)_\(n).\(ext)")
            let path = (folder as NSString).appendingPathComponent(candidate)
            if !FileManager.default.fileExists(atPath: path) { return path }
            n += 1
        }
    }

    /// Whether `path`, resolved, lies inside `folder` (a last check before writing).
    static func isInside(_ path: String, _ folder: String) -> Bool {
        let p = URL(fileURLWithPath: path).standardizedFileURL.path, f = URL(fileURLWithPath: folder).standardizedFileURL.path
        return p.hasPrefix(f.hasSuffix("/") ? f : f + "/")
    }
}
