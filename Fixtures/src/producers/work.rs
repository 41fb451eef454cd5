// Rust of the shapes crash logs meet: generics monomorphized into long names, closures, a panic.
use std::collections::BTreeMap;

struct Registry<K: Ord, V> {
    entries: BTreeMap<K, V>,
}

impl<K: Ord + Copy + std::fmt::Debug, V: Clone + Into<u64>> Registry<K, V> {
    #[inline(never)]
    fn total_of_every_entry_whose_key_passes(&self, keep: impl Fn(&K) -> bool) -> u64 {
        self.entries.iter().filter(|(k, _)| keep(k)).map(|(_, v)| v.clone().into()).sum()
    }
}

#[inline(never)]
fn crash_here(values: &[u64], at: usize) -> u64 {
    values[at] + 1
}

fn main() {
    let mut entries = BTreeMap::new();
    for (i, a) in std::env::args().enumerate() {
        entries.insert(i, a.len() as u32);
    }
    let registry = Registry { entries };
    let total = registry.total_of_every_entry_whose_key_passes(|k| *k % 2 == 0);
    println!("{}", crash_here(&[1, 2, 3], total as usize + 5));
}
