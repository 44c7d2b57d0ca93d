//! Which shard does which item: longest-processing-time-first over the
//! items' cost estimates, deterministic everywhere.
//!
//! Items are taken by decreasing cost (ties: the earlier item first) and
//! each goes to the shard with the least estimated cost so far (ties: the
//! lowest shard). With estimates proportional to the real costs this is
//! Graham's LPT schedule, at most 4/3 of the best makespan; with a few
//! items far costlier than the rest the costliest item bounds the
//! slowest shard whatever the split.

use crate::Shard;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The shard of each item (`costs[i]`: item i's estimate; 0 is allowed).
pub fn assign(costs: &[u64], shards: usize) -> Vec<usize> {
    assert!(shards > 0, "at least one shard");
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by_key(|&i| (Reverse(costs[i]), i));
    // Min-heap of (load, shard).
    let mut loads: BinaryHeap<Reverse<(u128, usize)>> =
        (0..shards).map(|s| Reverse((0u128, s))).collect();
    let mut of = vec![0; costs.len()];
    for i in order {
        let Reverse((load, s)) = loads.pop().expect("a shard");
        of[i] = s;
        loads.push(Reverse((load + costs[i] as u128, s)));
    }
    of
}

/// The items of `shard`, in their original order.
pub fn select(costs: &[u64], shard: Shard) -> Vec<usize> {
    assign(costs, shard.count)
        .into_iter()
        .enumerate()
        .filter(|&(_, s)| s == shard.index)
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_goes_to_exactly_one_shard() {
        let costs: Vec<u64> = (0..1000u64).map(|i| (i * 7919) % 97 + 1).collect();
        for n in [1, 2, 3, 8, 13] {
            let mut seen = vec![0; costs.len()];
            for k in 0..n {
                for i in select(&costs, Shard::new(k, n).unwrap()) {
                    seen[i] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "{n} shards");
        }
    }

    #[test]
    fn shards_are_balanced_by_cost_not_count() {
        // One item as costly as the 99 others together.
        let mut costs = vec![1u64; 100];
        costs[40] = 99;
        let of = assign(&costs, 2);
        let load = |s| -> u64 { (0..100).filter(|&i| of[i] == s).map(|i| costs[i]).sum() };
        assert_eq!((load(0), load(1)), (99, 99));
        assert_eq!(of.iter().filter(|&&s| s == of[40]).count(), 1);
    }

    #[test]
    fn lpt_is_within_four_thirds_of_the_average_or_the_largest_item() {
        let costs: Vec<u64> = (0..500u64).map(|i| 1 + (i * i * 31) % 1000).collect();
        let total: u64 = costs.iter().sum();
        let largest = *costs.iter().max().unwrap();
        for n in [2, 4, 8, 16] {
            let of = assign(&costs, n);
            let worst = (0..n)
                .map(|s| {
                    (0..costs.len())
                        .filter(|&i| of[i] == s)
                        .map(|i| costs[i])
                        .sum::<u64>()
                })
                .max()
                .unwrap();
            let bound = (total as f64 / n as f64 * 4.0 / 3.0).max(largest as f64);
            assert!(worst as f64 <= bound, "{n} shards: {worst} > {bound}");
        }
    }

    #[test]
    fn the_schedule_is_lpt_with_ties_to_the_earlier_item_and_lower_shard() {
        // By cost: item 3 (9) → shard 0, 6 (7) → 1, 0 (5) → 2, 1 (3) → 2
        // (load 5), 2 (3) → 1 (7), 5 (1) → 2 (8), 4 (0) → 0 (9, tied
        // with shard 2: the lower shard).
        let costs = [5u64, 3, 3, 9, 0, 1, 7];
        assert_eq!(assign(&costs, 3), vec![2, 2, 1, 0, 0, 2, 1]);
    }
}
