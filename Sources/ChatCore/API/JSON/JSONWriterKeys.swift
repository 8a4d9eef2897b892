/// A coding key for an array position or `super`, as JSONEncoder names them in coding paths;
/// the name is built only when asked for (coding paths are read only for errors).
struct JSONWriterIndexKey: CodingKey {
    private let index: Int
    private let isSuper: Bool

    init(index: Int) {
        self.index = index
        isSuper = false
    }

    /// The key `superEncoder()` uses.
    static let superKey = JSONWriterIndexKey(superKey: ())

    private init(superKey: Void) {
        index = 0
        isSuper = true
    }

    init?(stringValue: String) {
        guard stringValue == "super" else { return nil }
        self.init(superKey: ())
    }

    init?(intValue: Int) {
        self.init(index: intValue)
    }

    var stringValue: String { isSuper ? "super" : "Index \(index)" }
    var intValue: Int? { isSuper ? nil : index }
}
