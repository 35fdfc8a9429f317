pub struct SymbolResolver;
