"""The circles of a graph of files: what the architecture tests of the host and of the firmware look for."""


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of two or more nodes (Tarjan's), each sorted: a set of files that
    reach each other through their arrows. Arrows to nodes outside the graph are ignored."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph[node] & graph.keys():
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found
