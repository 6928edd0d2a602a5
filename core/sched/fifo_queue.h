#pragma once

#include <cstddef>
#include <vector>

namespace orrery::sched {

/** Jobs in arrival order, with O(1) push and pop (a vector and a head index, compacted now and then). */
class FifoQueue
{
public:
    void push(int j) { m_items.push_back(j); }
    bool empty() const { return m_head == m_items.size(); }
    int front() const { return m_items[m_head]; }
    void pop()
    {
        if (++m_head > 1024 && m_head * 2 > m_items.size()) {
            m_items.erase(m_items.begin(), m_items.begin() + static_cast<std::ptrdiff_t>(m_head));
            m_head = 0;
        }
    }

private:
    std::vector<int> m_items;
    std::size_t m_head = 0;
};

} // namespace orrery::sched
