pir.version 9
pir.graph_tags []
{
}
