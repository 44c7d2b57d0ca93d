//! A fast non-cryptographic hasher for maps keyed by small integers and
//! their vectors (solver literals, packed states): std's SipHash resists
//! collision attacks nobody mounts here and costs much more.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply–rotate hasher.
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl Hasher for FastHasher {
    /// The state with its high half folded into the low one: the last
    /// multiplication carries a word's high bits only upwards, and the
    /// table picks buckets by the low bits, so without the fold two-literal
    /// keys `[a, b]` that differ in `b` alone (one guard and-ed with many
    /// literals) shared a bucket chain.
    #[inline]
    fn finish(&self) -> u64 {
        let h = self.0;
        (h ^ (h >> 32)).wrapping_mul(0x9e_37_79_b9_7f_4a_7c_15) ^ (h >> 29)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    #[inline]
    fn write_i32(&mut self, v: i32) {
        self.write_u64(v as u32 as u64);
    }

    #[inline]
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }

    #[inline]
    fn write_u128(&mut self, v: u128) {
        self.write_u64(v as u64);
        self.write_u64((v >> 64) as u64);
    }
}

pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;
pub type FastSet<K> = HashSet<K, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn h<T: Hash + ?Sized>(v: &T) -> u64 {
        let mut s = FastHasher::default();
        v.hash(&mut s);
        s.finish()
    }

    #[test]
    fn distinguishes_what_maps_need() {
        assert_ne!(h(&[1i32, 2]), h(&[2i32, 1]));
        assert_ne!(h(&[1i32, 2, 3]), h(&[1i32, 2]));
        assert_ne!(h(&vec![0u8; 3]), h(&vec![0u8; 4]));
        assert_eq!(h(&[5i32, -7]), h(&[5i32, -7]));
        let mut m: FastMap<Vec<i32>, u32> = FastMap::default();
        for k in 0..1000 {
            m.insert(vec![k, -k, k * 3], k as u32);
        }
        assert_eq!(m[&vec![7, -7, 21]], 7);
        assert_eq!(m.len(), 1000);
    }

    /// Tables pick buckets by the low bits: keys that differ only in the
    /// high half of their last word (a guard and-ed with many literals,
    /// `[g, b]`) must spread over them, not share one chain.
    #[test]
    fn low_bits_depend_on_every_word() {
        for g in [-5i32, 3, -70_000] {
            let buckets: HashSet<u64> = (1..=1024i32).map(|b| h(&vec![g, b]) & 1023).collect();
            assert!(
                buckets.len() > 600,
                "{g}: {} buckets of 1024",
                buckets.len()
            );
        }
    }
}
