//! Strongly connected components (Tarjan's algorithm, iterative so that deep graphs do not
//! overflow the stack), for the two analyses that need them: mod/ref sums effects over the
//! call graph's components bottom-up, and the points-to solver merges cycles of copy edges.

/// The components of a graph.
pub(crate) struct Components {
    /// Each node's component (`usize::MAX` for a skipped node), numbered in the order
    /// Tarjan's algorithm completes them: every component after the components it reaches.
    pub of: Vec<usize>,
    pub count: usize,
    /// The nodes in the order they left the algorithm's stack: each component's members
    /// together, components in their numbering's order.
    pub popped: Vec<usize>,
}

/// Components of the graph on nodes `0..n`, skipping the nodes `skip` names (they are in no
/// component). `successor(v, i)` is `v`'s `i`-th successor, `None` past the last.
pub(crate) fn components(
    n: usize,
    skip: impl Fn(usize) -> bool,
    mut successor: impl FnMut(usize, usize) -> Option<usize>,
) -> Components {
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut component = vec![NONE; n];
    let mut popped = Vec::new();
    let (mut count, mut next) = (0, 0);
    for root in 0..n {
        if index[root] != NONE || skip(root) {
            continue;
        }
        // (node, position of its next successor): the recursion, made explicit.
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(w) = successor(v, *i) {
                *i += 1;
                if index[w] == NONE {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component[w] = count;
                    popped.push(w);
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    Components {
        of: component,
        count,
        popped,
    }
}

#[cfg(test)]
mod tests {
    use super::components;

    fn of(edges: &[&[usize]]) -> (Vec<usize>, usize) {
        let c = components(edges.len(), |_| false, |v, i| edges[v].get(i).copied());
        (c.of, c.count)
    }

    #[test]
    fn cycles_are_one_component_and_callees_come_first() {
        // 0 -> 1 -> 2 -> 1, 2 -> 3
        let (c, count) = of(&[&[1], &[2], &[1, 3], &[]]);
        assert_eq!(count, 3);
        assert_eq!(c[1], c[2]);
        assert!(c[3] < c[1] && c[1] < c[0], "{c:?}");
    }

    #[test]
    fn skipped_nodes_are_in_no_component() {
        let edges: [&[usize]; 3] = [&[1], &[0], &[]];
        let c = components(3, |v| v == 2, |v, i| edges[v].get(i).copied());
        assert_eq!(
            (c.of[0] == c.of[1], c.of[2], c.count),
            (true, usize::MAX, 1)
        );
        assert_eq!(c.popped, [1, 0]);
    }

    #[test]
    fn a_long_chain_does_not_overflow_the_stack() {
        let n = 200_000;
        let c = components(n, |_| false, |v, i| (i == 0 && v + 1 < n).then_some(v + 1));
        assert_eq!(c.count, n);
        assert_eq!(c.of[n - 1], 0);
    }
}
